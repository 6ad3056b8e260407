import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { BOB, show } from '../helpers/fixtures.ts';
import { killAll, runCli } from '../helpers/process.ts';
import { dispatcherFor, onCleanup, receiver, sendWithCallback } from './setup.ts';

afterEach(killAll);

/** A database file with two given-up deliveries and one delivered, built through the real services. */
async function databaseWithFailures() {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-webhooks-cli-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const database = join(dir, 'textrelay.db');
  const t = makeTestApp({ database });
  onCleanup(() => {
    t.db.$client.close();
  });
  t.clock.set(Date.UTC(2026, 10, 23, 9, 0, 0));
  const account = await t.createAccount();
  const gone = await receiver((_request, _index, response) => response.writeHead(410).end());
  const ok = await receiver();
  await sendWithCallback(t, account, gone.url());
  await dispatcherFor(t).runOnce();
  t.clock.set(Date.UTC(2026, 10, 23, 11, 0, 0));
  await sendWithCallback(t, account, gone.url(), BOB);
  await sendWithCallback(t, account, ok.url(), BOB);
  await dispatcherFor(t).runOnce();
  const deliveries = (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries as any[];
  return { t, env: { TEXTRELAY_DB: database, LOG_LEVEL: 'warn' }, deliveries };
}

function json(result: { code: number | null; stdout: string; stderr: string }) {
  expect(result.code, show(result)).toBe(0);
  return JSON.parse(result.stdout);
}

describe('textrelay webhooks', () => {
  it('list --failed --json shows only the given-up deliveries, with their attempts', async () => {
    const { env, deliveries } = await databaseWithFailures();
    const failedIds = deliveries.filter((d) => d.state === 'failed').map((d) => d.id);
    expect(failedIds).toHaveLength(2);

    const failed = json(await runCli(['webhooks', 'list', '--failed', '--json'], env));
    expect(failed.map((d: any) => d.id)).toEqual(failedIds);
    expect(failed[0].attempts).toEqual([expect.objectContaining({ status_code: 410 })]);
    const all = json(await runCli(['webhooks', 'list', '--json'], env));
    expect(all).toHaveLength(3);
    const human = await runCli(['webhooks', 'list', '--failed'], env);
    expect(
      human.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(failedIds);
  });

  it('replay --id queues one delivery again with the same webhook-id', async () => {
    const { t, env, deliveries } = await databaseWithFailures();
    const target = deliveries.find((d) => d.state === 'failed');
    expect(json(await runCli(['webhooks', 'replay', '--id', target.id, '--json'], env))).toEqual({ replayed: [target.id] });
    expect(await t.store.outbox.findByWebhookId(target.id)).toMatchObject({ state: 'pending', attemptCount: 0 });

    const unknown = await runCli(['webhooks', 'replay', '--id', 'msg_nope'], env);
    expect(unknown.code, show(unknown)).toBe(1);
    expect(unknown.stderr).toMatch(/not found/);
  });

  it('replay --failed-since TIME queues the deliveries given up since then', async () => {
    const { t, env, deliveries } = await databaseWithFailures();
    const later = deliveries.filter((d) => d.state === 'failed' && d.completed_at >= '2026-11-23T10');
    expect(later).toHaveLength(1);
    expect(json(await runCli(['webhooks', 'replay', '--failed-since', '2026-11-23T10:00:00Z', '--json'], env))).toEqual({
      replayed: [later[0].id],
    });
    expect(await t.store.outbox.listAll({ state: 'failed', limit: 10, offset: 0 })).toHaveLength(1);
  });

  it('prune --before TIME deletes the deliveries finished before then, with their attempts', async () => {
    const { t, env, deliveries } = await databaseWithFailures();
    const early = deliveries.filter((d) => d.completed_at < '2026-11-23T10');
    expect(early).toHaveLength(1);
    expect(json(await runCli(['webhooks', 'prune', '--before', '2026-11-23T10:00:00Z', '--json'], env))).toEqual({
      pruned: 1,
      before: '2026-11-23T10:00:00.000Z',
    });
    expect(await t.store.outbox.findByWebhookId(early[0].id)).toBeUndefined();
    const attempts = t.db.$client.prepare('select count(*) as n from webhook_attempts').get() as { n: number };
    expect(attempts.n, 'the two kept deliveries made one attempt each').toBe(2);
    expect(await t.store.outbox.listAll({ limit: 10, offset: 0 })).toHaveLength(2);
    const again = await runCli(['webhooks', 'prune', '--before', '2026-11-23T10:00:00Z'], env);
    expect(again.stdout).toMatch(/^Deleted 0 deliveries delivered or given up before 2026-11-23T10:00:00.000Z/);
  });

  it('refuses usage errors with exit code 2 and a bad --limit with 1, with a message, changing nothing', async () => {
    const { t, env, deliveries } = await databaseWithFailures();
    const usageErrors = [
      ['webhooks', 'replay'],
      ['webhooks', 'replay', '--id', 'x', '--failed-since', '2026-11-23'],
      ['webhooks', 'replay', '--failed-since', 'yesterday'],
      ['webhooks', 'purge'],
      ['webhooks', 'prune'],
      ['webhooks', 'prune', '--before', 'last week'],
    ];
    for (const [args, code] of [...usageErrors.map((args) => [args, 2] as const), [['webhooks', 'list', '--limit', '0'], 1] as const]) {
      const result = await runCli([...args], env);
      expect(result.code, `${args.join(' ')}: ${show(result)}`).toBe(code);
      expect(result.stderr.length, args.join(' ')).toBeGreaterThan(0);
      if (code === 2) expect(result.stderr, args.join(' ')).toMatch(/Usage|textrelay webhooks/);
    }
    const after = (await t.store.outbox.listAll({ limit: 10, offset: 0 })).map((row) => [row.webhookId, row.state]);
    expect(after).toEqual(deliveries.map((d) => [d.id, d.state]));
  });
});
