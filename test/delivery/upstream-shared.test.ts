import { afterEach, describe, expect, it } from 'vitest';
import { startBackgroundWork } from '../../src/background.ts';
import { loadConfig } from '../../src/config.ts';
import { createIngestSecrets } from '../../src/http/ingest-auth.ts';
import { createLogger } from '../../src/logger.ts';
import { AppError } from '../../src/services/app-error.ts';
import { setUpstreamCredentials } from '../../src/services/upstream-credentials.ts';
import { createProviderAccounts } from '../../src/transports/provider-api.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { LOOPBACK_ALLOWED } from '../helpers/fixtures.ts';

/**
 * Two accounts on one provider account would share its contacts, opt-outs and groups: a second one
 * is refused, and a relay database from before (its tenants all on the relay's credentials) starts
 * with a warning per account naming the command that gives it its own.
 */

const RELAY = { keyId: 'relay-key', secret: 'relay-secret' };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function provider(): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(() => ({ status: 200, body: { status: 'OK', secret: 'whsec_cmVsYXk=' } }));
  cleanups.push(() => upstream.close());
  return upstream;
}

function providersAt(url: string) {
  return createProviderAccounts({ url, relay: RELAY, outboundPolicy: LOOPBACK_ALLOWED });
}

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).message;
}

async function emails(t: TestApp): Promise<string[]> {
  return (await t.store.accounts.list()).map((account) => account.email);
}

describe('relay mode: one account per provider account', () => {
  it('refuses a second account on the relay’s credentials, and on a tenant’s own, writing nothing', async () => {
    const upstream = await provider();
    const t = makeTestApp({ transportName: 'upstream', providers: providersAt(upstream.url) });
    await t.createAccount({ email: 'first@example.com' });

    const onRelay = await refusal(t.createAccount({ email: 'second@example.com' }));
    expect(onRelay).toMatch(/second@example\.com cannot use the relay's provider account .*relay-key.*: first@example\.com is on it/);
    const onRelayKey = await refusal(t.createAccount({ email: 'third@example.com', upstream: { keyId: RELAY.keyId, secret: 'x' } }));
    expect(onRelayKey).toContain('first@example.com is on it');

    await t.createAccount({ email: 'own@example.com', upstream: { keyId: 'own-key', secret: 'own-secret' } });
    const onOwn = await refusal(t.createAccount({ email: 'copy@example.com', upstream: { keyId: 'own-key', secret: 'other' } }));
    expect(onOwn).toContain('cannot use provider account own-key: own@example.com is on it');
    expect(await emails(t)).toEqual(['first@example.com', 'own@example.com']);

    expect(await refusal(setUpstreamCredentials(t.deps, 'first@example.com', { keyId: 'own-key', secret: 's' }))).toContain(
      'own@example.com is on it',
    );
    expect((await t.store.accounts.findByEmail('first@example.com'))?.upstreamKeyId).toBeNull();
    // Moved to a provider account of its own, the first frees the relay's for a new tenant.
    await setUpstreamCredentials(t.deps, 'first@example.com', { keyId: 'first-key', secret: 'first-secret' });
    await t.createAccount({ email: 'second@example.com' });
    expect(await emails(t)).toEqual(['first@example.com', 'own@example.com', 'second@example.com']);
  });

  it('starts on an old database whose tenants share the relay’s credentials, warning once per shared account', async () => {
    const upstream = await provider();
    const lines: { level: number; msg: string }[] = [];
    const log = createLogger('warn', { write: (line: string) => lines.push(JSON.parse(line)) });
    // Made before tenants had provider accounts of their own: nothing refused them then.
    const t = makeTestApp({ transportName: 'upstream', log });
    for (const email of ['old-a@example.com', 'old-b@example.com', 'own@example.com']) {
      await t.createAccount({ email, upstream: email.startsWith('own') ? { keyId: 'own-key', secret: 'own-secret' } : undefined });
    }
    t.deps.providers = providersAt(upstream.url);
    const config = loadConfig({
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_UPSTREAM_URL: upstream.url,
      TEXTRELAY_UPSTREAM_KEY_ID: RELAY.keyId,
      TEXTRELAY_UPSTREAM_SECRET: RELAY.secret,
      TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
    });

    const background = await startBackgroundWork(config, {
      deps: t.deps,
      ingestSecrets: createIngestSecrets(undefined),
      sandboxAtSend: undefined,
      sharedDatabase: undefined,
    });
    await background.stop();

    const warnings = lines.filter((line) => line.msg.includes('textrelay accounts upstream set')).map((line) => line.msg);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^old-a@example\.com shares the relay's provider account .* with old-b@example\.com.*--email old-a@example\.com /,
      ),
      expect.stringMatching(
        /^old-b@example\.com shares the relay's provider account .* with old-a@example\.com.*--email old-b@example\.com /,
      ),
    ]);
  });
});
