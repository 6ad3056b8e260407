/** The orders a contact listing can be sorted by, as the API names them. */
export const CONTACT_ORDER_FIELDS = ['last_date', 'firstName', 'lastName', 'created_at'] as const;
export type ContactOrderField = (typeof CONTACT_ORDER_FIELDS)[number];
