import { and, asc, eq, lte, min, notExists, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { NewSandboxStep, SandboxStepRow } from '../../sqlite/queries/sandbox.ts';
import type { PgDb } from '../db.ts';
import { sandboxSteps } from '../schema.ts';

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
      // SQLite's prepared insert maps a missing flag through the boolean column: it stores false, not null.
      const result = await db
        .insert(sandboxSteps)
        .values(steps.map((step) => ({ ...step, wasDowngraded: step.wasDowngraded ?? false })))
        .onConflictDoNothing();
      return result.count;
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
