import type { MessageInsert } from '../../../src/db/sqlite/queries/messages.ts';
import type { TwinDatabases } from './twin-databases.ts';

/** The same small world in both databases: two accounts, their lines, contacts and groups. */

export const T0 = 1_700_000_000_000;
export const ACCOUNT = 'acc_1';
export const OTHER_ACCOUNT = 'acc_2';
export const LINE = '+15550000001';
export const ALICE = '+14155550100';
export const BOB = '+14155550101';
export const CAROL = '+14155550102';

export async function seedWorld(twins: TwinDatabases): Promise<void> {
  await twins.seed(
    'accounts',
    [ACCOUNT, OTHER_ACCOUNT].map((id) => ({
      id,
      email: `${id}@example.com`,
      plan: 'blue',
      apiKeyId: `key_${id}`,
      apiSecretHash: 'hash',
      createdAt: T0,
    })),
  );
  await twins.seed('service_numbers', [
    { number: LINE, accountId: ACCOUNT, createdAt: T0 },
    { number: '+15550000002', accountId: OTHER_ACCOUNT, createdAt: T0 },
  ]);
  await twins.seed('contacts', [
    { id: 'con_alice', accountId: ACCOUNT, phone: ALICE, firstName: 'Alice', lastName: 'A', createdAt: T0 },
    { id: 'con_bob', accountId: ACCOUNT, phone: BOB, firstName: 'Bob', lastName: 'B', createdAt: T0 },
  ]);
  await twins.seed('groups', [
    { id: 'grp_ab', accountId: ACCOUNT, memberKey: `${ALICE},${BOB}`, lineNumber: LINE, createdAt: T0, updatedAt: T0 },
    { id: 'grp_abc', accountId: ACCOUNT, memberKey: `${ALICE},${BOB},${CAROL}`, lineNumber: LINE, createdAt: T0, updatedAt: T0 },
  ]);
  await twins.seed('group_members', [
    { groupId: 'grp_ab', number: ALICE, addedAt: T0 },
    { groupId: 'grp_ab', number: BOB, addedAt: T0 },
    { groupId: 'grp_abc', number: ALICE, addedAt: T0 },
    { groupId: 'grp_abc', number: BOB, addedAt: T0 },
    { groupId: 'grp_abc', number: CAROL, addedAt: T0 },
  ]);
}

let handles = 0;

/** A message of the account: one-to-one with `number` unless a group is given. */
export function message(overrides: Partial<MessageInsert> = {}): MessageInsert {
  handles += 1;
  return {
    handle: `h-${handles}`,
    accountId: ACCOUNT,
    isOutbound: true,
    messageType: overrides.groupId ? 'group' : 'message',
    status: 'QUEUED',
    content: `message ${handles}`,
    mediaUrl: '',
    sendStyle: '',
    statusCallback: null,
    lineNumber: LINE,
    number: ALICE,
    recipients: null,
    contactId: overrides.groupId ? null : 'con_alice',
    groupId: null,
    dateSent: T0 + handles,
    dateUpdated: T0 + handles,
    ...overrides,
  };
}

/** A status event row of message `h-1`, applied, received at T0. */
export function statusEvent(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    messageHandle: 'h-1',
    status: 'QUEUED',
    errorCode: null,
    errorMessage: null,
    source: 'api',
    sourceEventId: null,
    applied: true,
    implied: false,
    notAppliedReason: null,
    receivedAt: T0,
    ...overrides,
  };
}

/** A webhook delivery of the account, pending and due at T0. */
export function delivery(seq: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    seq,
    webhookId: `msg_${seq}`,
    accountId: ACCOUNT,
    messageHandle: 'h-1',
    eventType: 'message.status',
    url: 'https://hooks.example.com/a',
    payload: '{}',
    state: 'pending',
    attemptCount: 0,
    nextAttemptAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** An inbound message for a line no account owns. */
export function unroutedRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transportHandle: null,
    fromNumber: ALICE,
    toNumber: '+15559999999',
    content: 'hello?',
    mediaUrl: '',
    service: 'SMS',
    transportGroupId: null,
    participants: null,
    source: 'upstream',
    receivedAt: T0,
    ...overrides,
  };
}
