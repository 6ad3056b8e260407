import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Answer, type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { jsonRequest, type Reply, readReply } from '../helpers/http.ts';
import { api, type Credentials, createAccount, eventually } from '../helpers/live.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../helpers/postgres-database.ts';
import { killAll, type RunningServer, startServer } from '../helpers/process.ts';

// Two and three real `textrelay serve` processes on one PostgreSQL database, as behind a load balancer.

const INGEST_SECRET = 'ingest-secret-of-the-instances-test';
const READ_NUMBER = '+14155550100';
/** A sandbox number whose messages are delivered and never read: READ only comes by ingest. */
const UNREAD_NUMBER = '+14155550101';

const opened: TestPostgresDatabase[] = [];
const receivers: Receiver[] = [];
afterEach(killAll);
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all(opened.map((database) => database.close()));
});

async function cluster(count: number, env: Record<string, string> = {}) {
  const database = await freshPostgresDatabase();
  opened.push(database);
  const account = await createAccount(database.url, 'instances@example.com');
  const start = () =>
    startServer(['--port', '0', '--db', database.url], {
      TEXTRELAY_SANDBOX_STEP_MS: '30',
      TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
      TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 50 }, () => '0.2').join(','),
      LOG_LEVEL: 'error',
      ...env,
    });
  const instances: RunningServer[] = [];
  for (let index = 0; index < count; index++) instances.push(await start());
  return { database, account, instances, start };
}

async function receiver(answer?: Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function send(server: RunningServer, account: Credentials, number: string, callback: string): Promise<string> {
  const reply = await api(server, account, 'POST', '/api/send-message', { number, content: 'hello', status_callback: callback });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body.message_handle;
}

function statusesReceived(target: Receiver, handle: string): string[] {
  return target.received.filter((request) => request.json?.message_handle === handle).map((request) => request.json.status);
}

async function ingestRead(server: RunningServer, handle: string, webhookId: string): Promise<Reply> {
  return readReply(
    await fetch(
      `${server.url}/webhooks/status`,
      jsonRequest('POST', { 'svc-signing-secret': INGEST_SECRET, 'webhook-id': webhookId }, { message_handle: handle, status: 'READ' }),
    ),
  );
}

describe('instances on one PostgreSQL', () => {
  it('read at once what another wrote, advance each sandbox timeline once, and deliver each callback once, in order', async () => {
    const { account, instances } = await cluster(2);
    const hooks = await receiver();
    const handles: string[] = [];
    for (let index = 0; index < 12; index++) {
      const [writer, reader] = index % 2 === 0 ? instances : [...instances].reverse();
      const handle = await send(writer!, account, READ_NUMBER, hooks.url('/status'));
      const read = await api(reader!, account, 'GET', `/api/status?handle=${handle}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      handles.push(handle);
    }
    await eventually('every message read and its callbacks delivered', async () =>
      handles.every((handle) => statusesReceived(hooks, handle).includes('READ')) ? true : undefined,
    );
    expectCallbacksOnce(hooks, handles, ['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    // Each status posted once: no instance delivered a row another had claimed.
    for (const handle of handles) expect(statusesReceived(hooks, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });

  it('record one transition and fire one callback for the same status ingested at two instances at once', async () => {
    const { account, instances } = await cluster(2);
    const hooks = await receiver();
    const handle = await send(instances[0]!, account, UNREAD_NUMBER, hooks.url('/status'));
    await eventually('delivered', async () => (statusesReceived(hooks, handle).includes('DELIVERED') ? true : undefined));
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, index) => ingestRead(instances[index % 2]!, handle, `msg_duplicate_${index % 4}`)),
    );
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body) + instances.map((i) => i.stdout()).join('\n')).toBe(200);
    await eventually('the READ callback', async () => (statusesReceived(hooks, handle).includes('READ') ? true : undefined));
    // Whatever would come late has had time to: the dispatchers poll far more often than this.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(statusesReceived(hooks, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    expect((await api(instances[1]!, account, 'GET', `/api/status?handle=${handle}`)).body.status).toBe('READ');
  });

  it('hand the callbacks a killed instance had claimed to another within 30 s', async () => {
    const { account, instances, start } = await cluster(1);
    // The receiver holds every request open: the first instance's claims stay in flight until it dies.
    const hooks = await receiver(() => new Promise(() => {}));
    const handles: string[] = [];
    for (let index = 0; index < 4; index++) handles.push(await send(instances[0]!, account, UNREAD_NUMBER, hooks.url('/status')));
    await eventually('every first callback claimed and in flight', async () =>
      hooks.received.length >= handles.length ? true : undefined,
    );
    const survivors = [await start(), await start()];
    instances[0]!.child.kill('SIGKILL');
    await instances[0]!.exited;
    const killedAt = Date.now();
    hooks.setAnswer((_request, _index, response) => {
      response.writeHead(200).end('ok');
    });
    await eventually(
      'the killed instance’s callbacks delivered by the others',
      async () => (handles.every((handle) => statusesReceived(hooks, handle).includes('DELIVERED')) ? true : undefined),
      45_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expectCallbacksOnce(hooks, handles, ['QUEUED', 'SENT', 'DELIVERED']);
    for (const survivor of survivors) expect((await api(survivor, account, 'GET', '/readyz')).status).toBe(200);
  }, 90_000);

  it('share one rate limit: N sends a minute across all instances, not N each', async () => {
    const { account, instances } = await cluster(2, { TEXTRELAY_RATE_LIMIT_PER_MINUTE: '10' });
    const replies: Reply[] = [];
    for (let index = 0; index < 20; index++) {
      replies.push(await api(instances[index % 2]!, account, 'POST', '/api/send-message', { number: READ_NUMBER, content: `${index}` }));
    }
    const accepted = replies.filter((reply) => reply.status === 202).length;
    // The bucket refills a sixth of a send each second the loop runs.
    expect(accepted).toBeGreaterThanOrEqual(10);
    expect(accepted).toBeLessThanOrEqual(11);
    expect(replies.filter((reply) => reply.status === 429).length).toBe(20 - accepted);
  });

  it('share idempotency keys and inbox sessions: a retry or a cookie works on any instance', async () => {
    const { account, instances } = await cluster(2);
    const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key, 'idempotency-key': 'retry-1' };
    const body = { number: READ_NUMBER, content: 'once, whichever instance' };
    const replies = await Promise.all(
      instances.flatMap((instance) =>
        [1, 2].map(async () => readReply(await fetch(`${instance.url}/api/send-message`, jsonRequest('POST', headers, body)))),
      ),
    );
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    expect(new Set(replies.map((reply) => reply.body.message_handle)).size).toBe(1);
    const listed = await api(instances[1]!, account, 'GET', '/accounts/messages?limit=10');
    expect(JSON.stringify(listed.body).split('once, whichever instance').length - 1).toBe(1);

    const signIn = await fetch(`${instances[0]!.url}/inbox/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: instances[0]!.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key_id: account.api_key_id, secret: account.api_secret_key }),
    });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = await fetch(`${instances[1]!.url}/inbox`, { redirect: 'manual', headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('once, whichever instance');
  });

  it('stream to a client of one instance the events written through another', async () => {
    const { account, instances } = await cluster(2);
    const stop = new AbortController();
    const stream = await fetch(`${instances[1]!.url}/api/v2/events`, {
      headers: { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key },
      signal: stop.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const handle = await send(instances[0]!, account, READ_NUMBER, 'http://127.0.0.1:9/unused');
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes(handle) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    stop.abort();
    expect(text).toContain(handle);
  });
});
