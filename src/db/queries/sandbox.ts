import { asc, eq, lte, min, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { sandboxSteps } from '../schema.ts';

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
    .limit(1)
    .prepare();
  const remove = db.delete(sandboxSteps).where(eq(sandboxSteps.id, sql.placeholder('id'))).prepare();

  return {
    /**
     * Stores a message's steps; a step already planned (same handle and index) is kept as it was,
     * so planning the same message twice adds nothing. Answers how many were new.
     */
    plan(steps: readonly NewSandboxStep[]): number {
      if (steps.length === 0) return 0;
      return db.insert(sandboxSteps).values([...steps]).onConflictDoNothing().run().changes;
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
      return db.select({ dueAt: min(sandboxSteps.dueAt) }).from(sandboxSteps).get()?.dueAt ?? undefined;
    },
  };
}
