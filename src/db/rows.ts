import type * as schema from './schema.ts';

export type AccountRow = typeof schema.accounts.$inferSelect;
export type ContactRow = typeof schema.contacts.$inferSelect;
export type GroupRow = typeof schema.groups.$inferSelect;
export type MessageRow = typeof schema.messages.$inferSelect;
export type NewMessageRow = typeof schema.messages.$inferInsert;
export type StatusEventRow = typeof schema.statusEvents.$inferSelect;
export type IdempotencyRow = typeof schema.idempotencyKeys.$inferSelect;
export type UnroutedInboundRow = typeof schema.unroutedInbound.$inferSelect;
export type NewUnroutedInboundRow = typeof schema.unroutedInbound.$inferInsert;
