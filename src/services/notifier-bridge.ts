import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { NotifierHub } from './notifier.ts';

/** A broadcast every instance on the database hears, this one included (PostgreSQL's LISTEN/NOTIFY). */
export type NotificationChannel = { publish(payload: string): Promise<void> };

/** Events of one turn are sent together: one NOTIFY per few milliseconds, not one per send. */
const COALESCE_MS = 5;
/** PostgreSQL refuses payloads of 8000 bytes or more; account ids are ASCII. */
const MAX_PAYLOAD_CHARS = 7_000;

type Payload = { from: string; outboxWritten: boolean; accounts: string[]; accountDataChanged?: boolean };

/**
 * Carries the hub's outbox writes, account activity and account data changes to the other instances'
 * hubs, and theirs to this one, so their dispatchers wake, their live views (inbox, GET
 * /api/v2/events) refresh and their account caches empty.
 * A hand-over (messageQueued) is not carried: the instance that stored the message hands it over.
 * The hub tells after commits, so what the others read on hearing it is already there.
 */
export function createNotifierBridge(hub: NotifierHub, channel: NotificationChannel, log: Logger) {
  const instanceId = randomUUID();
  let pending: { outboxWritten: boolean; accountDataChanged: boolean; accounts: Set<string> } | undefined;

  function queued() {
    if (!pending) {
      pending = { outboxWritten: false, accountDataChanged: false, accounts: new Set() };
      setTimeout(() => void flush(), COALESCE_MS).unref();
    }
    return pending;
  }

  /** Sends what waits for its turn; resolves once it is sent (or its failure logged). */
  async function flush(): Promise<void> {
    if (!pending) return;
    const { outboxWritten, accountDataChanged, accounts } = pending;
    pending = undefined;
    const sent = payloadsOf(instanceId, { outboxWritten, accountDataChanged }, [...accounts]).map((payload) =>
      // Lost, the others still find the outbox rows at their next poll; a live view refreshes at the next activity.
      channel.publish(payload).catch((error: unknown) => log.warn({ err: error }, 'could not notify the other instances')),
    );
    await Promise.all(sent);
  }

  hub.forwardTo({
    outboxWritten: () => {
      queued().outboxWritten = true;
    },
    accountActivity: (accountId) => {
      queued().accounts.add(accountId);
    },
    accountDataChanged: () => {
      queued().accountDataChanged = true;
    },
  });

  return {
    /** A notification arrived: another instance's events reach this hub; this instance's own are ignored. */
    message(payload: string): void {
      let parsed: Payload;
      try {
        parsed = JSON.parse(payload) as Payload;
      } catch {
        log.warn({ payload: payload.slice(0, 200) }, 'ignored a malformed notification');
        return;
      }
      if (parsed.from === instanceId) return;
      hub.heard({
        outboxWritten: parsed.outboxWritten === true,
        accounts: Array.isArray(parsed.accounts) ? parsed.accounts : [],
        accountDataChanged: parsed.accountDataChanged === true,
      });
    },
    /** (Re)connected: whatever was said meanwhile is lost, so every dispatcher wake, live view refresh and cache emptying happens now. */
    connected(): void {
      hub.heard({ outboxWritten: true, accounts: hub.watchedAccounts(), accountDataChanged: true });
    },
    flush,
  };
}

export type NotifierBridge = ReturnType<typeof createNotifierBridge>;

/** The events as payloads small enough for NOTIFY: the accounts spread over as many as they need. */
function payloadsOf(from: string, flags: Pick<Payload, 'outboxWritten' | 'accountDataChanged'>, accounts: string[]): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  let size = 0;
  const emit = () => {
    const first = payloads.length === 0;
    const payload: Payload = { from, outboxWritten: flags.outboxWritten && first, accounts: batch };
    if (flags.accountDataChanged && first) payload.accountDataChanged = true;
    payloads.push(JSON.stringify(payload));
    batch = [];
    size = 0;
  };
  for (const accountId of accounts) {
    if (size + accountId.length + 3 > MAX_PAYLOAD_CHARS) emit();
    batch.push(accountId);
    size += accountId.length + 3;
  }
  if (batch.length > 0 || payloads.length === 0) emit();
  return payloads;
}
