import type { AccountEventRow } from '../db/store.ts';
import { ACCOUNT_EVENT_TYPES, type AccountEventView } from '../domain/account-events.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';

/** How an events stream behaves: the cap per account, and how often it pings and looks at the log unprompted. */
export type EventStreamSettings = {
  /** Open streams per account; one more is refused (429). */
  perAccount: number;
  /** A `: ping` comment this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** The log is read this often even without a wake-up, so events written by another process arrive too. */
  pollMs: number;
  /** While the database cannot be read, the stream stays open this long, then ends with an `error` frame. */
  outageGraceMs: number;
};

export const EVENT_STREAM_DEFAULTS: EventStreamSettings = { perAccount: 5, heartbeatMs: 15_000, pollMs: 1_000, outageGraceMs: 30_000 };

/**
 * The last frame of a stream that cannot go on (the database unreachable past the grace, or a
 * failure): `event: error`, with JSON the SDK yields like an event, saying where to resume.
 */
export function streamErrorFrame(afterId: number, trouble: boolean): string {
  const error_code = trouble ? ErrorCode.overloaded : ErrorCode.internal;
  const reason = trouble ? 'Service unavailable: the database cannot be reached' : 'Internal error';
  const body = {
    type: 'error',
    status: 'ERROR',
    error_code,
    error_message: `${reason}; reconnect with Last-Event-ID: ${afterId} to resume`,
    last_event_id: String(afterId),
  };
  return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
}

/** Events read from the log per query: a long resume is sent batch by batch, never loaded at once. */
export const EVENT_READ_BATCH = 200;

/** The `types` allowlist: undefined lets every type through; an unknown name is refused (4000). */
export function parseEventTypes(types: string | undefined): ReadonlySet<string> | undefined {
  if (types === undefined || types.trim() === '') return undefined;
  const names = types
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const known: readonly string[] = ACCOUNT_EVENT_TYPES;
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new AppError(
      ErrorCode.validation,
      `types has unknown event types (${unknown.join(', ')}); allowed: ${ACCOUNT_EVENT_TYPES.join(', ')}`,
    );
  }
  return new Set(names);
}

/**
 * Where a stream starts: after the event the client saw last (`Last-Event-ID`), or, without one,
 * after the newest event at connect time (a fresh stream is live only).
 */
export async function streamStart(deps: ServiceDeps, accountId: string, lastEventId: string | undefined): Promise<number> {
  if (lastEventId === undefined || lastEventId.trim() === '') return deps.store.accountEvents.latestId(accountId);
  if (!/^\d{1,15}$/.test(lastEventId.trim())) {
    throw new AppError(ErrorCode.validation, 'Last-Event-ID must be the id of an event this stream sent, a whole number like 42');
  }
  return Number(lastEventId.trim());
}

function viewOf(row: AccountEventRow): AccountEventView {
  return {
    id: String(row.seq),
    type: row.type,
    occurred_at: new Date(row.occurredAt).toISOString(),
    data: JSON.parse(row.data) as Record<string, unknown>,
    version: 1,
  };
}

/**
 * The next batch of the account's events after `afterId` that pass `types`, and the id to read on
 * from (past the skipped ones too); `more` says a full batch was read and another may follow.
 */
export async function readEventsAfter(
  deps: ServiceDeps,
  accountId: string,
  afterId: number,
  types: ReadonlySet<string> | undefined,
): Promise<{ events: AccountEventView[]; nextAfterId: number; more: boolean }> {
  const rows = await deps.store.accountEvents.after(accountId, afterId, EVENT_READ_BATCH);
  return {
    events: rows.filter((row) => types === undefined || types.has(row.type)).map(viewOf),
    nextAfterId: rows.at(-1)?.seq ?? afterId,
    more: rows.length === EVENT_READ_BATCH,
  };
}

/** Counts open streams per account; `take` refuses (429, 4001) one beyond the cap. */
export function createStreamSlots(perAccount: number) {
  const open = new Map<string, number>();
  return {
    /** Takes a slot for the account; the returned function gives it back (once). */
    take(accountId: string): () => void {
      const count = open.get(accountId) ?? 0;
      if (count >= perAccount) {
        throw new AppError(ErrorCode.rateLimited, `Too many event streams open for this account: at most ${perAccount}; close one first`, {
          retryAfterSeconds: 5,
        });
      }
      open.set(accountId, count + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const left = (open.get(accountId) ?? 1) - 1;
        if (left === 0) open.delete(accountId);
        else open.set(accountId, left);
      };
    },
  };
}
