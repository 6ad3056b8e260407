import type { Statement } from 'better-sqlite3';
import { asc, eq, lte, min, sql } from 'drizzle-orm';
import { sandboxSteps } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';
import { eachCall } from './each-call.ts';

export type SandboxStepRow = typeof sandboxSteps.$inferSelect;
export type NewSandboxStep = Omit<SandboxStepRow, 'id'>;

/** The sandbox network's planned steps: its whole state, so a restart resumes where it stopped. */
export function sandboxQueries(db: Db) {
  // Both run once per simulated step: prepared once.
  const nextDue = db
    .select()
    .from(sandboxSteps)
    .where(lte(sandboxSteps.dueAt, sql.placeholder('now')))
    .orderBy(asc(sandboxSteps.dueAt), asc(sandboxSteps.id))
    .limit(unplannedParam(1))
    .prepare();
  const remove = db
    .delete(sandboxSteps)
    .where(eq(sandboxSteps.id, sql.placeholder('id')))
    .prepare();
  // Several per send, planned as it is stored: one positional insert of them all, prepared once per number of steps.
  const STEP_COLUMNS = 11;
  const inserts = new Map<number, Statement>();
  const insertSteps = (count: number): Statement => {
    let statement = inserts.get(count);
    if (!statement) {
      const row = `(${Array.from({ length: STEP_COLUMNS }, () => '?').join(', ')})`;
      statement = db.$client.prepare(`
        insert into sandbox_steps
          (message_handle, step_index, kind, status, error_code, error_message, was_downgraded, inbound_from, inbound_content, group_id, due_at)
        values ${Array.from({ length: count }, () => row).join(', ')} on conflict do nothing`);
      inserts.set(count, statement);
    }
    return statement;
  };
  // Once per hand-over.
  const earliestDueAt = db
    .select({ dueAt: min(sandboxSteps.dueAt) })
    .from(sandboxSteps)
    .prepare();

  /**
   * Stores a message's steps; a step already planned (same handle and index) is kept as it was,
   * so planning the same message twice adds nothing. Answers how many were new. Call inside a
   * transaction, so a message's steps are planned together.
   */
  function plan(steps: readonly NewSandboxStep[]): number {
    if (steps.length === 0) return 0;
    const values: unknown[] = [];
    for (const step of steps) {
      values.push(
        step.messageHandle,
        step.stepIndex,
        step.kind,
        step.status ?? null,
        step.errorCode ?? null,
        step.errorMessage ?? null,
        // A missing flag is stored as false, as the PostgreSQL twin stores it.
        Number(step.wasDowngraded === true),
        step.inboundFrom ?? null,
        step.inboundContent ?? null,
        step.groupId ?? null,
        step.dueAt,
      );
    }
    return insertSteps(steps.length).run(values).changes;
  }

  return {
    plan,
    /** plan of each call, in order. */
    planMany: eachCall(plan),
    /** The earliest step due at `now`, ties in insertion order. */
    nextDue(now: number): SandboxStepRow | undefined {
      return nextDue.get({ now });
    },
    /** Call in the transaction that applied the step, so it happens exactly once. */
    remove(id: number): void {
      remove.run({ id });
    },
    earliestDueAt(): number | undefined {
      return earliestDueAt.get()?.dueAt ?? undefined;
    },
  };
}
