import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import { addReceiveUrl, receiveUrls } from '../../src/services/account-webhooks.ts';
import { createGroupCommit } from '../../src/services/group-commit.ts';
import { recordHandover } from '../../src/services/handover.ts';
import { createCourier, DEFAULT_COURIER_OPTIONS } from '../../src/transports/courier.ts';
import { createSandboxTransport } from '../../src/transports/sandbox.ts';
import { makeTestApp } from '../helpers/app.ts';
import { accountRow, send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, BOB, CAROL, show, UNOWNED_LINE } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';

/**
 * Requests of one event-loop turn share one transaction, each in a savepoint: one failing request
 * leaves the others' writes in, and its own out.
 */

describe('group commit', () => {
  it('runs one turn’s work in one transaction, rolling back only the work that threw', async () => {
    const t = makeTestApp();
    const account = await accountRow(t, await t.createAccount());
    const sqlite = createSqliteStore(t.db, ':memory:');
    const commitsBefore = sqlite.commits();
    const hook = (name: string) => (store: typeof sqlite.store) =>
      addReceiveUrl({ ...t.deps, store }, account.id, `https://hooks.example.com/${name}`, 0);

    const groupCommit = createGroupCommit(sqlite.store);
    const results = await Promise.allSettled([
      groupCommit.run(hook('first')),
      groupCommit.run(async (store) => {
        await hook('failing')(store);
        throw new Error('this request fails');
      }),
      groupCommit.run(async (store) => {
        await hook('third')(store);
        return 'third done';
      }),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<string>).value).toBe('third done');
    expect((await receiveUrls(t.deps, account.id)).sort()).toEqual(['https://hooks.example.com/first', 'https://hooks.example.com/third']);
    expect(sqlite.commits() - commitsBefore).toBe(1);
    expect(t.db.$client.inTransaction).toBe(false);
  });

  it('rolls back a nested transaction that threw, and only it, whether or not the work around it wrote first', async () => {
    const t = makeTestApp();
    const account = await accountRow(t, await t.createAccount());
    const sqlite = createSqliteStore(t.db, ':memory:');
    const hook = (name: string) => (store: typeof sqlite.store) =>
      addReceiveUrl({ ...t.deps, store }, account.id, `https://hooks.example.com/${name}`, 0);
    const failing = (name: string) => async (store: typeof sqlite.store) => {
      await hook(name)(store);
      throw new Error(`${name} fails`);
    };
    const attempt = (run: Promise<unknown>) => run.catch(() => undefined);

    await createGroupCommit(sqlite.store).run(async (store) => {
      await attempt(store.transaction(failing('first-nested')));
      await hook('after-first')(store);
      await attempt(store.transaction(failing('second-nested')));
      await store.transaction(async (inner) => {
        await attempt(inner.transaction(failing('deepest')));
        await hook('kept-inside')(inner);
      });
      await hook('last')(store);
    });

    expect((await receiveUrls(t.deps, account.id)).sort()).toEqual(
      ['after-first', 'kept-inside', 'last'].map((name) => `https://hooks.example.com/${name}`),
    );
    expect(t.db.$client.inTransaction).toBe(false);
  });

  it('answers a burst of concurrent callbacks each by its own outcome, all committed', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
    const account = await t.createAccount();
    const handles: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const handle = (await send(t, account, { number: `+1212456${7000 + i}` })).message_handle;
      await recordHandover(t.deps, handle, { transportHandle: `up-burst-${i}` });
      handles.push(handle);
    }
    const group = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    await recordHandover(t.deps, group.message_handle, { transportHandle: 'up-burst-group', transportGroupId: 'up-group-burst' });
    const headers = { 'svc-signing-secret': INGEST_SECRET };

    const replies = await Promise.all([
      ...handles.map((_, i) => postIngest(t, '/webhooks/status', statusCallback(`up-burst-${i}`, 'DELIVERED'), headers)),
      postIngest(t, '/webhooks/status', statusCallback('up-burst-unknown', 'SENT'), headers),
      postIngest(
        t,
        '/webhooks/receive',
        { message_handle: 'up-in-stranger', number: ALICE, to_number: UNOWNED_LINE, content: 'who?' },
        headers,
      ),
      // Not a member of the group it writes in: refused, and rolled back alone.
      postIngest(
        t,
        '/webhooks/receive',
        { message_handle: 'up-in-intruder', number: CAROL, to_number: group.from_number, group_id: 'up-group-burst', content: 'let me in' },
        headers,
      ),
    ]);

    expect(
      replies.map((reply) => reply.status),
      show(replies.map((reply) => reply.body)),
    ).toEqual([...handles.map(() => 200), 202, 202, 400]);
    for (const handle of handles) expect((await t.store.messages.findByAnyHandle(handle))?.status).toBe('DELIVERED');
    expect(t.db.$client.prepare('select count(*) c from orphan_status_events').get()).toEqual({ c: 1 });
    expect(t.db.$client.prepare('select count(*) c from unrouted_inbound').get()).toEqual({ c: 1 });
    expect(await t.store.messages.findByAnyHandle('up-in-intruder')).toBeUndefined();
  });

  it('shares commits between a burst of sends and their hand-overs to the sandbox, instead of one commit per message', async () => {
    const t = makeTestApp();
    const transport = createSandboxTransport(t.deps, { stepMs: 1_000 });
    // One account alone: its hand-overs may take every slot, as they go in one batch.
    const courier = createCourier(t.deps, transport, { ...DEFAULT_COURIER_OPTIONS, perAccount: DEFAULT_COURIER_OPTIONS.concurrency });
    t.notifier.subscribe({ messageQueued: courier.enqueue });
    const account = await t.createAccount();
    const commitsBefore = t.commits();

    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('POST', '/api/send-message', account, { number: `+1212456${7100 + i}`, content: `burst ${i}` }),
      ),
    );
    await courier.idle();

    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 202));
    const handles = replies.map((reply) => (reply.body as { message_handle: string }).message_handle);
    for (const handle of handles) expect((await t.store.messages.findByAnyHandle(handle))?.handedOverAt).not.toBeNull();
    const planned = t.db.$client.prepare('select count(distinct message_handle) c from sandbox_steps').get();
    expect(planned).toEqual({ c: 20 });
    // The sends, the sandbox's plans and the hand-over marks: a commit each (one per message was 41).
    expect(t.commits() - commitsBefore).toBeLessThanOrEqual(3);
  });
});
