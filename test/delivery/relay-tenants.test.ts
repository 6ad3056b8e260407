import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { show, UNOWNED_LINE } from '../helpers/fixtures.ts';
import { INGEST_SECRET } from '../helpers/ingest.ts';
import { api, type Credentials, createAccount, eventually, startServerOnFreePort } from '../helpers/live.ts';
import { killAll, type RunningServer, runCli, startServer } from '../helpers/process.ts';

/**
 * Two tenants, V and A, on one relay R (upstream transport) through one provider account on B
 * (a sandbox textrelay). Each tenant owns one of the provider's real lines. What one tenant's end
 * users write must reach that tenant only, and their group sends must not trip over each other.
 */

const SLOW = 120_000;
const STEP_MS = 100;
const PERSON = '+13105550177';

describe('relay with two tenants on one provider account', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-tenants-'));
  const dbR = join(dir, 'r.db');
  const dbB = join(dir, 'b.db');
  let r: RunningServer;
  let b: RunningServer;
  let provider: Credentials;
  let v: Credentials;
  let a: Credentials;

  async function cli(db: string, args: string[]) {
    const result = await runCli([...args, '--db', db], { LOG_LEVEL: 'silent' });
    expect(result.code, result.stderr).toBe(0);
    return result;
  }

  beforeAll(async () => {
    provider = await createAccount(dbB, 'relay@b.example.com', '2');
    [v, a] = [
      await createAccount(dbR, 'v@tenant.example.com', provider.numbers[0]!),
      await createAccount(dbR, 'a@tenant.example.com', provider.numbers[1]!),
    ];
    b = await startServer(
      [],
      {
        PORT: '0',
        TEXTRELAY_DB: dbB,
        TEXTRELAY_SANDBOX_STEP_MS: String(STEP_MS),
        TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,2,5',
        LOG_LEVEL: 'warn',
      },
      SLOW,
    );
    r = await startServerOnFreePort(
      (port) => ({
        TEXTRELAY_DB: dbR,
        TEXTRELAY_TRANSPORT: 'upstream',
        TEXTRELAY_UPSTREAM_URL: b.url,
        TEXTRELAY_UPSTREAM_KEY_ID: provider.api_key_id,
        TEXTRELAY_UPSTREAM_SECRET: provider.api_secret_key,
        TEXTRELAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
        TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
        TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
        LOG_LEVEL: 'info',
      }),
      SLOW,
    );
    await r.waitForLine(/receive webhook registered upstream/, SLOW);
  }, SLOW * 2);

  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sendAs(tenant: Credentials, path: string, body: Record<string, unknown>) {
    const reply = await api(r, tenant, 'POST', path, body);
    expect(reply.status, show(reply.body)).toBe(202);
    return reply.body;
  }

  async function statusOf(tenant: Credentials, handle: string) {
    return (await api(r, tenant, 'GET', `/api/status?handle=${handle}`)).body;
  }

  /** Waits until the provider has reported the message past QUEUED. */
  async function leftQueued(tenant: Credentials, handle: string) {
    return eventually(`${handle} past QUEUED`, async () => {
      const status = await statusOf(tenant, handle);
      return status.status !== 'QUEUED' ? status : undefined;
    });
  }

  async function messagesOf(tenant: Credentials, query = '') {
    const listed = await api(r, tenant, 'GET', `/accounts/messages${query}`);
    expect(listed.status, show(listed.body)).toBe(200);
    return listed.body.messages as any[];
  }

  /** The inbox pages A's person sees after logging in with the API credentials. */
  async function inboxHtml(tenant: Credentials): Promise<string> {
    const login = await fetch(`${r.url}/inbox/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: r.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key_id: tenant.api_key_id, secret: tenant.api_secret_key }),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const pages = await Promise.all(
      ['/inbox', '/inbox?kind=contact'].map(async (path) => (await fetch(`${r.url}${path}`, { headers: { cookie } })).text()),
    );
    return pages.join('\n');
  }

  it(
    'sends each tenant’s message from its own line, and brings the person’s reply to V’s line to V only',
    async () => {
      const toV = await sendAs(v, '/api/send-message', { number: PERSON, content: 'hello from V' });
      await leftQueued(v, toV.message_handle);
      const toA = await sendAs(a, '/api/send-message', { number: PERSON, content: 'hello from A' });
      await leftQueued(a, toA.message_handle);
      expect([toV.from_number, toA.from_number]).toEqual([provider.numbers[0], provider.numbers[1]]);
      const atProvider = (await api(b, provider, 'GET', '/accounts/messages')).body.messages as any[];
      expect(
        atProvider
          .filter((m) => m.number === PERSON)
          .map((m) => [m.content, m.from_number])
          .sort(),
        show(atProvider),
      ).toEqual([
        ['hello from A', provider.numbers[1]],
        ['hello from V', provider.numbers[0]],
      ]);

      // The person answers on the line V wrote from (the provider pinned them to it).
      const reply = await api(b, provider, 'POST', '/sandbox/inbound', { number: PERSON, content: 'reply meant for V' });
      expect(reply.status, show(reply.body)).toBe(200);

      const inV = await eventually('the reply in V', async () => {
        const found = (await messagesOf(v, `?number=${encodeURIComponent(PERSON)}`)).find((m) => !m.is_outbound);
        return found;
      });
      expect(inV, show(inV)).toMatchObject({ content: 'reply meant for V', to_number: provider.numbers[0], status: 'RECEIVED' });

      // A: no trace of it in its listing, its status lookup, its contacts or its inbox.
      const listedA = await messagesOf(a);
      expect(
        listedA.map((m) => [m.is_outbound, m.content]),
        show(listedA),
      ).toEqual([[true, 'hello from A']]);
      expect((await api(r, a, 'GET', `/api/status?handle=${inV.message_handle}`)).status).toBe(404);
      const contactsA = await api(r, a, 'GET', '/accounts/contacts');
      expect(JSON.stringify(contactsA.body)).not.toContain('reply meant for V');
      expect(await inboxHtml(a)).not.toContain('reply meant for V');
      expect(await inboxHtml(v)).toContain('reply meant for V');
    },
    SLOW,
  );

  it(
    'keeps an inbound message to a line no tenant owns as unrouted (202): in status and /metrics, in neither tenant',
    async () => {
      const body = { message_handle: 'provider-msg-unowned', number: PERSON, to_number: UNOWNED_LINE, content: 'to nobody’s line' };
      const posted = await fetch(`${r.url}/webhooks/receive`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-signing-secret': INGEST_SECRET },
        body: JSON.stringify(body),
      });
      expect(posted.status).toBe(202);
      expect(await posted.json()).toEqual({ status: 'OK' });

      const status = JSON.parse((await cli(dbR, ['status', '--json'])).stdout);
      expect(status.unrouted_inbound, show(status)).toMatchObject({
        total: 1,
        latest: [{ from_number: PERSON, to_number: UNOWNED_LINE, content: 'to nobody’s line' }],
      });
      expect((await cli(dbR, ['status'])).stdout).toMatch(/Unrouted inbound messages .*: 1/);
      const metrics = await (await fetch(`${r.url}/metrics`)).text();
      expect(metrics).toMatch(/^textrelay_unrouted_inbound_messages 1$/m);

      for (const tenant of [v, a]) {
        expect(JSON.stringify(await messagesOf(tenant))).not.toContain('to nobody’s line');
        expect(JSON.stringify((await api(r, tenant, 'GET', '/accounts/contacts')).body)).not.toContain('to nobody’s line');
        expect(await inboxHtml(tenant)).not.toContain('to nobody’s line');
      }
    },
    SLOW,
  );

  it(
    'hands over both tenants’ group sends to the same people once each, and both leave QUEUED',
    async () => {
      const members = ['+16175550101', '+16175550102'];
      const fromV = await sendAs(v, '/api/send-group-message', { numbers: members, content: 'group from V' });
      await leftQueued(v, fromV.message_handle);
      const fromA = await sendAs(a, '/api/send-group-message', { numbers: members, content: 'group from A' });
      const statusA = await leftQueued(a, fromA.message_handle);
      expect(statusA.status, show(statusA)).not.toBe('ERROR');

      // Let a would-be re-posting courier show itself.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const atProvider = (await api(b, provider, 'GET', '/accounts/messages?limit=100')).body.messages as any[];
      const groupSends = atProvider.filter((m) => m.is_outbound && m.message_type === 'group').map((m) => [m.content, m.from_number]);
      expect(groupSends.sort(), show(atProvider)).toEqual([
        ['group from A', provider.numbers[1]],
        ['group from V', provider.numbers[0]],
      ]);
      expect(r.stdout() + r.stderr()).not.toMatch(/could not record the hand-over|UNIQUE constraint failed/);
    },
    SLOW,
  );
});
