import type { ContactRow } from './rows.ts';

/**
 * What a deleted contact brought back as a new one gets, on either backend: its own fields reset
 * and created now. The conversation summary stays (its messages did), and so does the opt-out,
 * the end user's choice.
 */
export function revivedContactFields(now: number) {
  return {
    firstName: '',
    lastName: '',
    companyName: '',
    assignedToEmail: '',
    tags: [],
    customVariables: {},
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<ContactRow>;
}
