import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BlueBubblesError, BlueBubblesUnreachable, createBlueBubblesClient } from '../../../src/transports/bluebubbles/client.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from '../../helpers/fake-bluebubbles/server.ts';

const policy = { allowPrivate: true, allowLinkLocal: false };
let fake: FakeBlueBubbles | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function clientOf(password?: string) {
  fake = await startFakeBlueBubbles();
  return createBlueBubblesClient({ url: fake.url, password: password ?? fake.settings.password, outboundPolicy: policy });
}

async function failureOf(work: Promise<unknown>): Promise<Error> {
  return work.then(
    () => expect.unreachable('the call succeeded'),
    (error: Error) => error,
  );
}

describe('the BlueBubbles REST client', () => {
  it('sends the password as the guid query parameter and reads the envelope data', async () => {
    const client = await clientOf();
    expect(await client.call('GET', '/ping')).toBe('pong');
    expect(fake!.requests[0]!.url).toContain(`guid=${encodeURIComponent(fake!.settings.password)}`);
    await client.close();
  });

  it('never puts a wrong password into the error it raises', async () => {
    const client = await clientOf('wrong-pass&word');
    const error = await failureOf(client.call('GET', '/server/info'));
    expect(error).toBeInstanceOf(BlueBubblesError);
    expect((error as BlueBubblesError).status).toBe(401);
    expect((error as BlueBubblesError).errorType).toBe('Authentication Error');
    expect(error.message).not.toContain('wrong-pass');
    await client.close();
  });

  it('redacts the password from an error text that quotes the request URL', async () => {
    // A proxy in front of the Mac (a tunnel, a reverse proxy) may answer with the URL it could not route.
    const server = createServer((req, res) =>
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `Cannot route ${req.url}` })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const password = 'secret pass/+word';
    const client = createBlueBubblesClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      password,
      outboundPolicy: policy,
    });
    const error = await failureOf(client.call('GET', '/ping'));
    expect(error.message).toContain('Cannot route /api/v1/ping?guid=[redacted]');
    expect(error.message).not.toContain('secret');
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('says unreachable when nothing listens', async () => {
    fake = await startFakeBlueBubbles();
    await fake.stop();
    const client = createBlueBubblesClient({ url: fake.url, password: 'p', outboundPolicy: policy });
    expect(await failureOf(client.call('GET', '/ping'))).toBeInstanceOf(BlueBubblesUnreachable);
    await client.close();
  });

  it('reads the error text from error.message (source) and from error.error (docs)', async () => {
    const bodies = [
      { status: 400, message: 'Validation Error', error: { type: 'Validation Error', message: 'The chatGuid field is required.' } },
      { status: 400, message: 'Validation Error', error: { type: 'Validation Error', error: 'The chatGuid field is required.' } },
    ];
    let next = 0;
    const server = createServer((_req, res) =>
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(bodies[next++])),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createBlueBubblesClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      password: 'p',
      outboundPolicy: policy,
    });
    for (const _ of bodies) {
      const error = (await failureOf(client.call('POST', '/message/text', { json: {} }))) as BlueBubblesError;
      expect(error.detail).toBe('The chatGuid field is required.');
      expect(error.errorType).toBe('Validation Error');
    }
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is refused a link-local BlueBubbles address', async () => {
    const client = createBlueBubblesClient({ url: 'http://169.254.169.254:1234', password: 'p', outboundPolicy: policy });
    const error = await failureOf(client.call('GET', '/ping'));
    expect(error.message).toContain('link-local');
    await client.close();
  });
});

describe('the fake BlueBubbles server', () => {
  it('keeps one webhook per URL and answers a second send of an in-flight tempGuid with 400', async () => {
    const client = await clientOf();
    const first = (await client.call('POST', '/webhook', { json: { url: 'http://127.0.0.1:9/hook', events: ['new-message'] } })) as {
      id: number;
    };
    const again = (await client.call('POST', '/webhook', { json: { url: 'http://127.0.0.1:9/hook', events: ['*'] } })) as { id: number };
    expect(again.id).toBe(first.id);
    fake!.control.sendDelayMs = 300;
    const body = { json: { chatGuid: 'iMessage;-;+15551230000', message: 'hi', tempGuid: 't-1' } };
    const sending = client.call('POST', '/message/text', body);
    const second = (await failureOf(client.call('POST', '/message/text', body))) as BlueBubblesError;
    expect(second.status).toBe(400);
    expect(second.summary).toContain('already queued');
    expect(await sending).toMatchObject({ tempGuid: 't-1', text: 'hi', isFromMe: true });
    await client.close();
  });
});
