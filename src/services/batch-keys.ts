/**
 * The keys of group commit (group-commit.ts): what a batched work reads and then writes. Two works
 * with a key in common never share a batch, so the later one sees what the earlier one wrote.
 */

/** A message, by our handle or the transport's: its status, its events, its hand-over. */
export const messageKey = (handle: string) => `message ${handle}`;

/** A person (an end user's number): their contact, pin and conversation, whichever account writes them. */
export const personKey = (number: string) => `person ${number}`;

/** A group conversation, by its id or its members. */
export const groupKey = (idOrMembers: string) => `group ${idOrMembers}`;

/** An idempotency key of an account's: the first request with it stores the answer the others replay. */
export const idempotencyKeys = (account: { id: string }, key: string | undefined) =>
  key === undefined ? [] : [`idempotency ${account.id} ${key}`];
