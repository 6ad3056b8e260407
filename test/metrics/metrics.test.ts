import { describe, expect, it } from 'vitest';
import { recordStatus } from '../../src/services/record-status.ts';
import { appWithAccount, dispatcherFor, receiver, sendWithCallback } from '../callbacks/setup.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';
import { type Sample, sampleValue, scrape } from './scrape.ts';

const request = (t: TestApp) => (path: string, init?: RequestInit) => t.app.request(path, init);

function requests(samples: Sample[], method: string, route: string, status: number): number | undefined {
  return sampleValue(samples, 'textrelay_http_requests_total', { method, route, status: String(status) });
}

describe('/metrics: HTTP requests', () => {
  it('counts requests by method, route pattern and status, with a latency histogram per route', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    for (const number of [ALICE, BOB, CAROL]) {
      const sent = await t.call('POST', '/api/send-message', account, { number, content: 'hi' });
      expect(sent.status, show(sent.body)).toBe(202);
    }
    expect((await t.call('POST', '/api/send-message', account, { number: '911', content: 'hi' })).status).toBe(400);
    const contacts = await t.call('GET', '/accounts/contacts', account);
    const cids = (contacts.body as { cid: string }[]).map((contact) => contact.cid);
    for (const cid of cids.slice(0, 2)) expect((await t.call('GET', `/accounts/contacts/${cid}`, account)).status).toBe(200);
    expect((await t.call('GET', '/accounts/messages', undefined)).status).toBe(401);
    expect((await t.call('GET', '/no/such/page-4711', account)).status).toBe(404);

    const { text, samples } = await scrape(request(t));

    expect(requests(samples, 'POST', '/api/send-message', 202), text).toBe(3);
    expect(requests(samples, 'POST', '/api/send-message', 400)).toBe(1);
    expect(requests(samples, 'GET', '/accounts/contacts', 200)).toBe(1);
    expect(requests(samples, 'GET', '/accounts/contacts/:contact_id', 200)).toBe(2);
    expect(requests(samples, 'GET', '/accounts/messages', 401)).toBe(1);
    expect(requests(samples, 'GET', 'unmatched', 404)).toBe(1);
    // Patterns, never raw paths: one series per route however many contacts or bad URLs there are.
    for (const raw of [...cids, 'page-4711']) expect(text).not.toContain(raw);

    const latency = { method: 'POST', route: '/api/send-message' };
    expect(sampleValue(samples, 'textrelay_http_request_duration_seconds_count', latency)).toBe(4);
    expect(sampleValue(samples, 'textrelay_http_request_duration_seconds_bucket', { ...latency, le: '+Inf' })).toBe(4);
    expect(sampleValue(samples, 'textrelay_http_request_duration_seconds_sum', latency)).toBeGreaterThan(0);

    // A scrape is counted once answered, so the next scrape shows the first.
    const again = await scrape(request(t));
    expect(requests(again.samples, 'GET', '/metrics', 200)).toBe(1);
  });

  it('keeps each app its own registry: two apps in one process never mix their counts', async () => {
    const busy = makeTestApp();
    const idle = makeTestApp();
    for (let i = 0; i < 3; i += 1) await busy.call('GET', '/healthz', undefined);
    expect(requests((await scrape(request(busy))).samples, 'GET', '/healthz', 200)).toBe(3);
    expect(requests((await scrape(request(idle))).samples, 'GET', '/healthz', 200)).toBeUndefined();
  });
});

describe('/metrics: messages and outbox, read from the database at each scrape', () => {
  it('shows messages by status, outbox depth by state and the age of the oldest due callback', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const callback = 'http://127.0.0.1:9/status';
    const first = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'one', status_callback: callback });
    await t.call('POST', '/api/send-message', account, { number: BOB, content: 'two', status_callback: callback });
    await t.call('POST', '/api/send-message', account, { number: CAROL, content: 'three' });
    // Its SENT callback waits behind its QUEUED one, which nobody has delivered.
    await recordStatus(t.deps, { handle: first.body.message_handle as string, status: 'SENT', source: 'sandbox' });
    expect((await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hello back' })).status).toBe(200);
    t.clock.advance(90_000);

    const { text, samples } = await scrape(request(t));
    const messages = (status: string) => sampleValue(samples, 'textrelay_messages', { status });
    expect(
      [messages('QUEUED'), messages('SENT'), messages('RECEIVED'), messages('DELIVERED'), messages('READ'), messages('ERROR')],
      text,
    ).toEqual([2, 1, 1, 0, 0, 0]);
    const outbox = (state: string) => sampleValue(samples, 'textrelay_outbox_deliveries', { state });
    expect(['due', 'held', 'retry_wait', 'delivering', 'failed'].map(outbox)).toEqual([2, 1, 0, 0, 0]);
    expect(sampleValue(samples, 'textrelay_outbox_oldest_due_age_seconds')).toBe(90);

    // The next scrape reads again: nothing is cached from the first.
    await recordStatus(t.deps, { handle: first.body.message_handle as string, status: 'DELIVERED', source: 'sandbox' });
    const after = (await scrape(request(t))).samples;
    expect(sampleValue(after, 'textrelay_messages', { status: 'SENT' })).toBe(0);
    expect(sampleValue(after, 'textrelay_messages', { status: 'DELIVERED' })).toBe(1);
    expect(sampleValue(after, 'textrelay_outbox_deliveries', { state: 'held' })).toBe(2);
  });
});

describe('/metrics: webhook delivery attempts', () => {
  it('counts each attempt by what became of its delivery: delivered, retry, failed', async () => {
    const { t, account } = await appWithAccount();
    const ok = await receiver();
    const down = await receiver((_request, _index, response) => response.writeHead(500).end('down'));
    const gone = await receiver((_request, _index, response) => response.writeHead(410).end());
    await sendWithCallback(t, account, ok.url(), ALICE);
    await sendWithCallback(t, account, down.url(), BOB);
    await sendWithCallback(t, account, gone.url(), CAROL);
    const dispatcher = dispatcherFor(t);

    expect(await dispatcher.runOnce()).toBe(3);
    let samples = (await scrape(request(t))).samples;
    const attempts = (outcome: string) => sampleValue(samples, 'textrelay_webhook_delivery_attempts_total', { outcome });
    expect([attempts('delivered'), attempts('retry'), attempts('failed')]).toEqual([1, 1, 1]);
    const outbox = (state: string) => sampleValue(samples, 'textrelay_outbox_deliveries', { state });
    expect(['due', 'retry_wait', 'failed'].map(outbox)).toEqual([0, 1, 1]);

    // The first retry is due 5 s later (the test schedule, no jitter); it fails again.
    t.clock.advance(5_000);
    expect(sampleValue((await scrape(request(t))).samples, 'textrelay_outbox_deliveries', { state: 'due' })).toBe(1);
    expect(await dispatcher.runOnce()).toBe(1);
    samples = (await scrape(request(t))).samples;
    expect([attempts('delivered'), attempts('retry'), attempts('failed')]).toEqual([1, 2, 1]);
  });
});

describe('/metrics: ingest duplicates', () => {
  it('counts events posted to /webhooks/* a second time and dropped, not the first nor a new event', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const account = await t.createAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi' });
    const secret = { 'svc-signing-secret': INGEST_SECRET };
    const handle = sent.body.message_handle as string;
    const sentEvent = statusCallback(handle, 'SENT');
    expect((await postIngest(t, '/webhooks/status', sentEvent, { ...secret, 'webhook-id': 'evt_1' })).status).toBe(200);
    expect((await postIngest(t, '/webhooks/status', sentEvent, { ...secret, 'webhook-id': 'evt_1' })).status).toBe(200);
    expect(
      (await postIngest(t, '/webhooks/status', statusCallback(handle, 'DELIVERED'), { ...secret, 'webhook-id': 'evt_2' })).status,
    ).toBe(200);
    const inbound = { message_handle: 'upstream-in-1', number: BOB, to_number: account.numbers[0], content: 'hello' };
    for (let i = 0; i < 3; i += 1) expect((await postIngest(t, '/webhooks/receive', inbound, secret)).status).toBe(200);

    const { samples } = await scrape(request(t));
    expect(sampleValue(samples, 'textrelay_ingest_duplicates_total', { endpoint: 'status' })).toBe(1);
    expect(sampleValue(samples, 'textrelay_ingest_duplicates_total', { endpoint: 'receive' })).toBe(2);
    expect(sampleValue(samples, 'textrelay_messages', { status: 'RECEIVED' })).toBe(1);
  });
});

describe('/metrics: access', () => {
  it('is open by default, absent when turned off, and behind a bearer token when one is set', async () => {
    expect((await makeTestApp().app.request('/metrics')).status).toBe(200);
    expect((await makeTestApp({ metricsEndpoint: { enabled: false, bearerToken: undefined } }).app.request('/metrics')).status).toBe(404);

    const token = 'scrape-token-0123456789';
    const t = makeTestApp({ metricsEndpoint: { enabled: true, bearerToken: token } });
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }];
    for (const headers of attempts) {
      const refused = await t.app.request('/metrics', { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await refused.json()).toMatchObject({ status: 'ERROR', error_code: 4010 });
    }
    const allowed = await t.app.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('textrelay_http_requests_total{method="GET",route="/metrics",status="401"} 3');
  });
});
