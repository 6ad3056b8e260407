import { and, asc, eq, lte, min, notExists, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { NewSandboxStep, SandboxStepRow } from '../../sqlite/queries/sandbox.ts';
import type { PgDb } from '../db.ts';
import { sandboxSteps } from '../schema.ts';
import { sqlPreparedOnce } from './prepared-once.ts';

const p = sql.placeholder;

/**
 * Steps stored in the order given (their ids: ties of nextDue), each column an array; a step
 * already planned is kept as it was. Answers the new ones.
 */
const stepsPlanned = sqlPreparedOnce<{ message_handle: string; step_index: string | number }>(
  'sandbox_steps_planned',
  () => sql`
    insert into sandbox_steps
      (message_handle, step_index, kind, status, error_code, error_message, was_downgraded, inbound_from, inbound_content, group_id, due_at)
    select message_handle, step_index, kind, status, error_code, error_message, was_downgraded, inbound_from, inbound_content, group_id, due_at
    from unnest(${p('messageHandle')}::text[], ${p('stepIndex')}::bigint[], ${p('kind')}::text[], ${p('status')}::text[],
      ${p('errorCode')}::bigint[], ${p('errorMessage')}::text[], ${p('wasDowngraded')}::text[]::boolean[], ${p('inboundFrom')}::text[],
      ${p('inboundContent')}::text[], ${p('groupId')}::text[], ${p('dueAt')}::bigint[])
      with ordinality as step (message_handle, step_index, kind, status, error_code, error_message, was_downgraded, inbound_from,
        inbound_content, group_id, due_at, ord)
    order by ord
    on conflict do nothing
    returning message_handle, step_index`,
);

/** The steps' values, column by column, for stepsPlanned. */
function columnsOf(steps: readonly NewSandboxStep[]): Record<string, unknown[]> {
  return {
    messageHandle: steps.map((step) => step.messageHandle),
    stepIndex: steps.map((step) => step.stepIndex),
    kind: steps.map((step) => step.kind),
    status: steps.map((step) => step.status ?? null),
    errorCode: steps.map((step) => step.errorCode ?? null),
    errorMessage: steps.map((step) => step.errorMessage ?? null),
    // SQLite's prepared insert maps a missing flag through the boolean column: it stores false, not null.
    // As text: postgres.js would send an array of booleans as one boolean.
    wasDowngraded: steps.map((step) => String(step.wasDowngraded ?? false)),
    inboundFrom: steps.map((step) => step.inboundFrom ?? null),
    inboundContent: steps.map((step) => step.inboundContent ?? null),
    groupId: steps.map((step) => step.groupId ?? null),
    dueAt: steps.map((step) => step.dueAt),
  };
}

const stepKey = (messageHandle: string, stepIndex: number) => `${stepIndex} ${messageHandle}`;

/**
 * The PostgreSQL twin of ../../sqlite/queries/sandbox.ts: the sandbox network's planned steps,
 * shared by every instance. Each step goes to the one transaction that locks it.
 */
export function sandboxQueries(db: PgDb) {
  const earlier = alias(sandboxSteps, 'earlier');

  return {
    /**
     * Stores a message's steps; a step already planned (same handle and index) is kept as it was,
     * so planning the same message twice adds nothing. Answers how many were new. Call inside a
     * transaction, so a message's steps are planned together.
     */
    async plan(steps: readonly NewSandboxStep[]): Promise<number> {
      if (steps.length === 0) return 0;
      return (await stepsPlanned(db).execute(columnsOf(steps))).length;
    },
    /** plan of each call, in one statement: a step two calls plan counts for the first. */
    async planMany(calls: readonly [steps: readonly NewSandboxStep[]][]): Promise<number[]> {
      const steps = calls.flatMap(([callSteps]) => callSteps);
      if (steps.length === 0) return calls.map(() => 0);
      const fresh = new Set(
        (await stepsPlanned(db).execute(columnsOf(steps))).map((row) => stepKey(row.message_handle, Number(row.step_index))),
      );
      return calls.map(([callSteps]) => {
        let planned = 0;
        for (const step of callSteps) if (fresh.delete(stepKey(step.messageHandle, step.stepIndex))) planned += 1;
        return planned;
      });
    },
    /**
     * The earliest step due at `now`, ties in insertion order, locked until the transaction ends.
     * Steps another instance holds are skipped, and so are the later steps of its message: a
     * message's steps happen in order.
     */
    async nextDue(now: number): Promise<SandboxStepRow | undefined> {
      const s = sandboxSteps;
      const [step] = await db
        .select()
        .from(s)
        .where(
          and(
            lte(s.dueAt, now),
            notExists(
              db
                .select({ one: sql`1` })
                .from(earlier)
                .where(and(eq(earlier.messageHandle, s.messageHandle), sql`(${earlier.dueAt}, ${earlier.id}) < (${s.dueAt}, ${s.id})`)),
            ),
          ),
        )
        .orderBy(asc(s.dueAt), asc(s.id))
        .limit(1)
        .for('update', { of: s, skipLocked: true });
      return step;
    },
    /** Call in the transaction that applied the step, so it happens exactly once. */
    async remove(id: number): Promise<void> {
      await db.delete(sandboxSteps).where(eq(sandboxSteps.id, id));
    },
    async earliestDueAt(): Promise<number | undefined> {
      const [row] = await db.select({ dueAt: min(sandboxSteps.dueAt) }).from(sandboxSteps);
      return row?.dueAt ?? undefined;
    },
  };
}
