import { asc, eq, lte, min, sql } from 'drizzle-orm';
import { sandboxSteps } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { unplannedParam } from '../placeholders.ts';

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
  // Several per send, planned as it is stored: positional, without drizzle's mapping of each call.
  const insertStep = db.$client.prepare(`
    insert into sandbox_steps
      (message_handle, step_index, kind, status, error_code, error_message, was_downgraded, inbound_from, inbound_content, group_id, due_at)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`);
  // Once per hand-over.
  const earliestDueAt = db
    .select({ dueAt: min(sandboxSteps.dueAt) })
    .from(sandboxSteps)
    .prepare();

  return {
    /**
     * Stores a message's steps; a step already planned (same handle and index) is kept as it was,
     * so planning the same message twice adds nothing. Answers how many were new. Call inside a
     * transaction, so a message's steps are planned together.
     */
    plan(steps: readonly NewSandboxStep[]): number {
      let added = 0;
      for (const step of steps) {
        added += insertStep.run(
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
        ).changes;
      }
      return added;
    },
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
