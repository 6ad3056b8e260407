import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectNoStaleReads } from '../helpers/account-cache-scenario.ts';
import { makeTestApp } from '../helpers/app.ts';

// The server and a second process (a CLI command) on one SQLite file: each its own connection.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'account-cache-'));
  const database = join(dir, 'textrelay.db');
  const server = makeTestApp({ database });
  const cli = makeTestApp({ database });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), server.close, cli.close);
  return { server: { deps: server.deps, request: server.app.request }, cli: { deps: cli.deps, request: cli.app.request } };
}

describe('the account cache on one SQLite file written by two processes', () => {
  it('never answers from what the other process changed', async () => {
    const { server, cli } = twoConnections();
    await expectNoStaleReads(cli, server, async () => {});
  });

  it('answers a verified key from memory, and a wrong secret from the database', async () => {
    const t = makeTestApp();
    cleanups.push(t.close);
    const account = await t.createAccount();
    let lookups = 0;
    const findByKeyId = t.queries.accounts.findByKeyId;
    t.queries.accounts.findByKeyId = (keyId) => {
      lookups += 1;
      return findByKeyId(keyId);
    };
    for (let i = 0; i < 3; i += 1) expect((await t.call('GET', '/api/v2/contacts', account)).status).toBe(200);
    expect(lookups).toBe(1);
    const wrong = { ...account, headers: { ...account.headers, 'svc-api-secret-key': `${account.api_secret_key}x` } };
    for (let i = 0; i < 2; i += 1) expect((await t.call('GET', '/api/v2/contacts', wrong)).status).toBe(401);
    expect(lookups).toBe(3);
  });
});
