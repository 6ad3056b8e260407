import { asc, eq, lte, min, sql } from 'drizzle-orm';
import { sandboxSteps } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { placeholdersFor, unplannedParam } from '../placeholders.ts';

export type SandboxStepRow = typeof sandboxSteps.$inferSelect;
export type NewSandboxStep = Omit<SandboxStepRow, 'id'>;

const STEP_COLUMNS = [
  'messageHandle',
  'stepIndex',
  'kind',
  'status',
  'errorCode',
  'errorMessage',
  'wasDowngraded',
  'inboundFrom',
  'inboundContent',
  'groupId',
  'dueAt',
] as const satisfies readonly (keyof NewSandboxStep)[];

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
  // These run once per hand-over.
  const insertStep = db.insert(sandboxSteps).values(placeholdersFor(STEP_COLUMNS)).onConflictDoNothing().prepare();
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
      return steps.reduce((added, step) => added + insertStep.run(step).changes, 0);
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
