import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE } from '../helpers/fixtures.ts';
import { accountIdOf, fakeProvider } from '../helpers/sdk-surface.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const SIX_MB = 6 * 1024 * 1024;
/** Far more than socket buffers hold, so a client that stops reading stops the server well before the end. */
const ENDLESS = 256 * 1024 * 1024;

let origin: string;
let server: Server;
/** How many bytes the too-large answer had written when the client went away. */
let bigBytesWritten = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    switch (request.url) {
      case '/photo.png':
        response.writeHead(200, { 'content-type': 'image/png; charset=binary' });
        return response.end(PNG);
      case '/clip.mp4':
        response.writeHead(200, { 'content-type': 'video/mp4' });
        return response.end(Buffer.alloc(2048, 1));
      case '/moved.png':
        response.writeHead(302, { location: '/photo.png' });
        return response.end();
      case '/big.jpg': {
        // Chunked, no Content-Length: the cap must hold while streaming.
        response.writeHead(200, { 'content-type': 'image/jpeg' });
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (bigBytesWritten < ENDLESS) {
            bigBytesWritten += chunk.length;
            if (!response.write(chunk)) return response.once('drain', pump);
          }
          response.end();
        };
        response.on('close', () => response.destroy());
        return pump();
      }
      case '/declared-big.png':
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(SIX_MB) });
        return response.end();
      case '/page.html':
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return response.end('<html></html>');
      default:
        response.writeHead(404, { 'content-type': 'text/plain' });
        return response.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function upload(t: TestApp, account: TestAccount | undefined, body: unknown) {
  return t.call('POST', '/api/upload-media-object', account, body);
}

/** The path of a textrelay media URL, for requesting it from the in-process app. */
const pathOf = (url: string) => new URL(url).pathname;

describe('POST /api/upload-media-object', () => {
  it('stores an image and serves it without credentials, immutable, at an unguessable URL', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await upload(t, account, { media_url: `${origin}/photo.png` });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({
      status: 'OK',
      message: expect.any(String),
      mediaObjectId: expect.any(String),
      media_url: expect.any(String),
    });
    const { mediaObjectId, media_url } = reply.body;
    expect(mediaObjectId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(media_url).toBe(`http://localhost/media/${mediaObjectId}.png`);

    const served = await t.app.request(pathOf(media_url));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-length')).toBe(String(PNG.length));
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    // The id alone serves it too.
    expect((await t.app.request(`/media/${mediaObjectId}`)).status).toBe(200);
  });

  it('gives each upload its own id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await upload(t, account, { media_url: `${origin}/photo.png` });
    const second = await upload(t, account, { media_url: `${origin}/photo.png` });
    expect(first.body.mediaObjectId).not.toBe(second.body.mediaObjectId);
  });

  it('takes video and audio, and follows a redirect', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const clip = await upload(t, account, { media_url: `${origin}/clip.mp4` });
    expect(clip.body.media_url, JSON.stringify(clip.body)).toMatch(/\.mp4$/);
    const moved = await upload(t, account, { media_url: `${origin}/moved.png` });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const served = await t.app.request(pathOf(moved.body.media_url));
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
  });

  it('uses TEXTRELAY_PUBLIC_URL for the URL it answers', async () => {
    const t = makeTestApp({ proxy: { publicUrlIsHttps: true } });
    const account = await t.createAccount();
    const reply = await upload(t, account, { media_url: `${origin}/photo.png` });
    expect(reply.body.media_url).toMatch(/^https:\/\/textrelay\.example\/media\/[A-Za-z0-9_-]{43}\.png$/);
  });

  it("is usable as a send's media_url", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const uploaded = await upload(t, account, { media_url: `${origin}/photo.png` });
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, media_url: uploaded.body.media_url });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body.media_url).toBe(uploaded.body.media_url);
  });

  it.each([
    ['/missing.png', /^media_url could not be fetched: answered 404$/],
    ['/page.html', /^media_url is text\/html, not an accepted image, video, audio or vCard type$/],
    ['/declared-big.png', /^media_url is larger than 5 MB$/],
  ])('refuses %s with 400/4000 naming why', async (path, message) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await upload(t, account, { media_url: `${origin}${path}` });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(message);
  });

  it('stops reading a body that grows past 5 MB', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    bigBytesWritten = 0;
    const reply = await upload(t, account, { media_url: `${origin}/big.jpg` });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toBe('media_url is larger than 5 MB');
    expect(bigBytesWritten).toBeLessThan(ENDLESS / 4);
  });

  it('refuses a private address when private addresses are not allowed, as callbacks are', async () => {
    const t = makeTestApp({ outboundPolicy: { allowPrivate: false, allowLinkLocal: false } });
    const account = await t.createAccount();
    const reply = await upload(t, account, { media_url: `${origin}/photo.png` });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(/^media_url could not be fetched: refused by the outbound address policy/);
  });

  it('refuses a URL that is not http(s), or none, with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    for (const body of [{ media_url: 'ftp://example.com/a.png' }, { media_url: 'not a url' }, {}]) {
      const reply = await upload(t, account, body);
      expectMessageError(reply, 400, 4000);
      expect(reply.body.error_message).toMatch(/media_url/);
    }
  });

  it('answers 401 without credentials', async () => {
    const t = makeTestApp();
    expectMessageError(await upload(t, undefined, { media_url: `${origin}/photo.png` }), 401, 4010);
  });

  it('relay: forwards the upload and records what the provider answered, without bytes', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const answer = { status: 'OK', message: 'uploaded', mediaObjectId: 'prov-media-1', media_url: 'https://cdn.provider.example/1.png' };
    const calls = fakeProvider(t, () => ({ status: 200, body: answer }));
    const reply = await upload(t, account, { media_url: `${origin}/photo.png` });
    expect(reply.body).toEqual(answer);
    expect(calls).toEqual([{ method: 'POST', path: '/api/upload-media-object', body: { media_url: `${origin}/photo.png` } }]);
    expect(await t.store.media.findById('prov-media-1')).toMatchObject({
      accountId: await accountIdOf(t, account),
      remoteUrl: 'https://cdn.provider.example/1.png',
      bytes: null,
    });
    expect((await t.app.request('/media/prov-media-1')).status).toBe(404);
  });
});

describe('GET /media/{id}', () => {
  it('answers 404 for an unknown id', async () => {
    const t = makeTestApp();
    expect((await t.app.request('/media/nothing-here.png')).status).toBe(404);
    expect((await t.app.request(`/media/${'A'.repeat(43)}`)).status).toBe(404);
  });
});
