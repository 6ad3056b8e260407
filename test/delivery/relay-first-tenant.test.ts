import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, runCli, startServer } from '../helpers/process.ts';

/**
 * A relay started on an empty database makes no development account: that account would sit on
 * the relay's own provider account, and the operator's first tenant, made without provider flags,
 * would be refused because of it.
 */

const dir = mkdtempSync(join(tmpdir(), 'textrelay-relay-first-'));
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('a relay on an empty database', () => {
  it("makes no development account, so the first tenant gets the relay's provider account", async () => {
    const env = {
      TEXTRELAY_DB: join(dir, 'relay.db'),
      TEXTRELAY_TRANSPORT: 'upstream',
      // Nobody answers there: the relay starts all the same, and registers its webhook later.
      TEXTRELAY_UPSTREAM_URL: 'http://127.0.0.1:9',
      TEXTRELAY_UPSTREAM_KEY_ID: 'relay-key',
      TEXTRELAY_UPSTREAM_SECRET: 'relay-secret',
      TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
      LOG_LEVEL: 'silent',
    };
    const relay = await startServer(['--port', '0'], env, 60_000);
    expect(relay.banner).not.toContain('development account');
    const first = await runCli(['accounts', 'create', '--email', 'first@tenant.example.com', '--numbers', '+14155550150', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const listed = await runCli(['accounts', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout).map((account: { email: string }) => account.email)).toEqual(['first@tenant.example.com']);
    expect(await relay.stop()).toEqual({ code: 0, signal: null });
  }, 120_000);
});
