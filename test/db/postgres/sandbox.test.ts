import { beforeEach, describe, expect, it } from 'vitest';
import { sandboxQueries } from '../../../src/db/postgres/queries/sandbox.ts';
import type { NewSandboxStep } from '../../../src/db/sqlite/queries/sandbox.ts';
import type { Queries } from '../../../src/db/store.ts';
import { answering, heldTransaction, seedAccounts, useTwins } from '../../helpers/postgres-twins.ts';

type Sandbox = Queries['sandbox'];

function step(messageHandle: string, stepIndex: number, dueAt: number, extra: Partial<NewSandboxStep> = {}): NewSandboxStep {
  return {
    messageHandle,
    stepIndex,
    kind: 'status',
    status: 'DELIVERED',
    errorCode: null,
    errorMessage: null,
    wasDowngraded: false,
    inboundFrom: null,
    inboundContent: null,
    groupId: null,
    dueAt,
    ...extra,
  };
}

async function story(sandbox: Sandbox): Promise<unknown[]> {
  const seen: unknown[] = [await sandbox.earliestDueAt(), await sandbox.nextDue(10_000), await sandbox.plan([])];
  seen.push(
    await sandbox.plan([
      step('m1', 0, 200, { status: 'SENT' }),
      step('m1', 1, 300),
      // No news of the network, as the sandbox plans inbound and typing steps: SQLite stores false.
      step('m1', 2, 900, {
        kind: 'inbound',
        status: null,
        wasDowngraded: null,
        inboundFrom: '+15550001111',
        inboundContent: 'hi',
        groupId: 'g1',
      }),
    ]),
    await sandbox.plan([step('m2', 0, 200, { status: 'ERROR', errorCode: 4001, errorMessage: 'nope', wasDowngraded: true })]),
    await sandbox.plan([step('m1', 1, 5), step('m1', 3, 950)]), // the planned step is kept as it was
    await sandbox.earliestDueAt(),
    await sandbox.nextDue(199),
  );
  for (let now = 200; ; now += 100) {
    const due = await sandbox.nextDue(now);
    seen.push(due);
    if (due) await sandbox.remove(due.id);
    if (!due && now > 1000) break;
  }
  seen.push(await sandbox.earliestDueAt());
  return seen;
}

describe('the PostgreSQL sandbox steps', () => {
  const twins = useTwins();
  beforeEach(() => seedAccounts(twins));

  it('answers every call as the SQLite sandbox does', async () => {
    const typed: Sandbox = sandboxQueries(twins.pg);
    const expected = await story(answering(twins.sqlite.sandbox));
    expect(await story(typed)).toEqual(expected);
  });

  it("gives each step to one instance, and a message's next step waits for the one before", async () => {
    await sandboxQueries(twins.pg).plan([step('m1', 0, 100), step('m1', 1, 100), step('m2', 0, 150)]);
    const [first, second] = [heldTransaction(twins.connect(1)), heldTransaction(twins.connect(1))];
    const firstStep = await sandboxQueries(await first.tx).nextDue(1000);
    const secondStep = await sandboxQueries(await second.tx).nextDue(1000);
    expect([firstStep?.messageHandle, firstStep?.stepIndex]).toEqual(['m1', 0]);
    expect([secondStep?.messageHandle, secondStep?.stepIndex]).toEqual(['m2', 0]);
    await sandboxQueries(await first.tx).remove(firstStep!.id);
    await first.commit();
    await sandboxQueries(await second.tx).remove(secondStep!.id);
    await second.commit();
    expect((await sandboxQueries(twins.pg).nextDue(1000))?.stepIndex).toBe(1);
  });

  it('runs every step exactly once when instances race for them', async () => {
    const steps = Array.from({ length: 40 }, (_, index) => step(`m${index % 8}`, Math.floor(index / 8), 100 + index));
    await sandboxQueries(twins.pg).plan(steps);
    const instances = [twins.connect(2), twins.connect(2), twins.connect(2)];
    const taken = await Promise.all(
      instances.map(async (db) => {
        const mine: string[] = [];
        for (;;) {
          const ran = await db.transaction(async (tx) => {
            const sandbox = sandboxQueries(tx as never);
            const due = await sandbox.nextDue(1000);
            if (due) await sandbox.remove(due.id);
            return due;
          });
          if (!ran) return mine;
          mine.push(`${ran.messageHandle}/${ran.stepIndex}`);
        }
      }),
    );
    const all = taken.flat();
    expect(all.sort()).toEqual(steps.map((planned) => `${planned.messageHandle}/${planned.stepIndex}`).sort());
    // Each instance saw a message's steps in order.
    for (const mine of taken)
      for (const message of new Set(mine.map((id) => id.split('/')[0])))
        expect(mine.filter((id) => id.startsWith(`${message}/`))).toEqual(mine.filter((id) => id.startsWith(`${message}/`)).sort());
  });
});
