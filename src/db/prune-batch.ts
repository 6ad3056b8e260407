/** One batch of a walk that removes old rows from the oldest on: how many went, and where the next batch starts (null: the walk is over). */
export type PruneBatch = { pruned: number; resumeAfter: number | null };
