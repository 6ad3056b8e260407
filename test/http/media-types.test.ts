import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { rowCounts } from '../helpers/row-counts.ts';
import { accountIdOf } from '../helpers/sdk-surface.ts';

// A stored file must never be served as a page on textrelay's origin (the inbox's).

const PAGE = '<html><body><form action="https://evil.example">Sign in again</form></body></html>';
/** What each path of the source answers: its Content-Type header(s) and body. */
const SOURCES: Record<string, { type: string | string[]; body: string }> = {
  '/listed.png': { type: 'image/png, text/html', body: PAGE },
  '/listed.svg': { type: 'image/svg+xml,text/html', body: PAGE },
  '/twice.png': { type: ['image/png', 'text/html'], body: PAGE },
  '/unknown.ico': { type: 'image/x-icon', body: 'ico' },
  '/drawing.svg': { type: 'image/svg+xml; charset=utf-8', body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>' },
  '/card.vcf': { type: 'text/vcard', body: 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ann\r\nEND:VCARD\r\n' },
  '/photo.png': { type: 'IMAGE/PNG ; charset="binary"', body: 'png bytes' },
};

let origin: string;
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    const source = SOURCES[request.url ?? ''];
    if (!source) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': source.type });
    response.end(source.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function upload(t: TestApp, path: string) {
  const account = await t.createAccount();
  return t.call('POST', '/api/upload-media-object', account, { media_url: `${origin}${path}` });
}

async function served(t: TestApp, mediaUrl: string) {
  const response = await t.app.request(new URL(mediaUrl).pathname);
  expect(response.status).toBe(200);
  return { headers: response.headers, body: await response.text() };
}

describe('media types', () => {
  it.each([
    ['/listed.png', 'has Content-Type "image/png, text/html", which is not one well-formed media type'],
    ['/listed.svg', 'has Content-Type "image/svg+xml,text/html", which is not one well-formed media type'],
    ['/twice.png', 'has Content-Type "image/png, text/html", which is not one well-formed media type'],
    ['/unknown.ico', 'is image/x-icon, not an accepted image, video, audio or vCard type'],
  ])('refuses %s with 400/4000 naming the type, storing nothing', async (path, problem) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const before = await rowCounts(t);
    const reply = await t.call('POST', '/api/upload-media-object', account, { media_url: `${origin}${path}` });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toBe(`media_url ${problem}`);
    expect(await rowCounts(t)).toEqual(before);
  });

  it('stores one lower-cased type without its parameters, and serves a raster image inline', async () => {
    const t = makeTestApp();
    const reply = await upload(t, '/photo.png');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.media_url).toMatch(/\.png$/);
    const { headers } = await served(t, reply.body.media_url);
    expect(headers.get('content-type')).toBe('image/png');
    expect(headers.get('content-disposition')).toBeNull();
    expect(headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['/drawing.svg', 'image/svg+xml', 'svg'],
    ['/card.vcf', 'text/vcard', 'vcf'],
  ])('accepts %s but serves it only as a download', async (path, type, extension) => {
    const t = makeTestApp();
    const reply = await upload(t, path);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.media_url).toMatch(new RegExp(`\\.${extension}$`));
    const { headers, body } = await served(t, reply.body.media_url);
    expect(body).toBe(SOURCES[path]!.body);
    expect(headers.get('content-type')).toBe(type);
    expect(headers.get('content-disposition')).toBe(`attachment; filename="${reply.body.mediaObjectId}.${extension}"`);
    expect(headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves a row stored before types were checked as bytes to download, never as a page', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const accountId = await accountIdOf(t, account);
    for (const [id, contentType] of [
      ['old-listed', 'image/png, text/html'],
      ['old-page', 'text/html'],
    ] as const) {
      const bytes = Buffer.from(PAGE);
      await t.store.media.insert({
        id,
        accountId,
        sourceUrl: `${origin}/x`,
        contentType,
        bytes,
        byteLength: bytes.length,
        remoteUrl: null,
        createdAt: 0,
      });
      const response = await t.app.request(`/media/${id}.png`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${id}.bin"`);
    }
  });

  it('hands out media URLs on TEXTRELAY_MEDIA_URL, which serves them', async () => {
    const t = makeTestApp({ mediaUrl: 'https://media.textrelay.example/' });
    const reply = await upload(t, '/photo.png');
    expect(reply.body.media_url).toBe(`https://media.textrelay.example/media/${reply.body.mediaObjectId}.png`);
    expect((await served(t, reply.body.media_url)).body).toBe('png bytes');
  });
});
