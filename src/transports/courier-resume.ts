import type { ServiceDeps } from '../services/deps.ts';
import { awaitingHandoverFrom, type HandoverPosition, type HandoverSender, handoverSenders } from '../services/handover.ts';
import { isOutage } from '../services/storage-errors.ts';

/** How many waiting messages of one sender a resume loads at a time. */
export const RESUME_PAGE = 100;
/** A sender's next page is read once this few of its messages wait in its lane: the lane never runs dry while pages are left. */
const REFILL_BELOW = RESUME_PAGE / 4;

export function senderKey(sender: HandoverSender): string {
  return `${sender.accountId}\n${sender.lineNumber}`;
}

type Reading = { sender: HandoverSender; after?: HandoverPosition };

/** What the courier tells the resume: how to queue a message it read, and how many of a sender's wait in its lane. */
export type ResumeTarget = {
  enqueue(handle: string, sender: HandoverSender): void;
  /** The sender's messages waiting in its lane, not yet started. */
  queued(sender: HandoverSender): number;
};

/**
 * Finds the messages left waiting for their hand-over (by a previous process, or by another
 * instance that died) and feeds them to the courier, each sender (account and line) read apart, a
 * page at a time, as its lane drains: one account's backlog is never read, nor queued, ahead of
 * another's, and memory holds at most a page or so per sender.
 */
export function createResumeReader(deps: ServiceDeps, target: ResumeTarget) {
  /** The senders whose resume has pages left, by senderKey. */
  const readings = new Map<string, Reading>();
  /** Senders whose next page is due, in the order they asked; each at most once. */
  const due = new Set<string>();
  let reader: Promise<void> | undefined;
  let lookingForSenders = false;
  let stopped = false;

  async function readPage(key: string): Promise<void> {
    const reading = readings.get(key);
    if (!reading) return;
    const page = await awaitingHandoverFrom(deps, reading.sender, RESUME_PAGE, reading.after);
    if (page.length === RESUME_PAGE) reading.after = page.at(-1);
    else readings.delete(key);
    for (const message of page) target.enqueue(message.handle, reading.sender);
    offer(key);
  }

  async function readDuePages(): Promise<void> {
    for (const key of due) {
      due.delete(key);
      if (stopped) break;
      try {
        await readPage(key);
      } catch (error) {
        // The sender is read again at the next rescan or start.
        readings.delete(key);
        if (!isOutage(error)) deps.log.error({ err: error }, 'reading messages awaiting hand-over failed');
      }
    }
  }

  /** Reads `key`'s next page if it has pages left and its lane runs low; at most one reader runs. */
  function offer(key: string): void {
    const reading = readings.get(key);
    if (stopped || !reading || target.queued(reading.sender) >= REFILL_BELOW) return;
    due.add(key);
    reader ??= readDuePages().finally(() => {
      reader = undefined;
      if (due.size > 0 && !stopped) offer(due.values().next().value!);
    });
  }

  /**
   * Starts reading each sender with waiting messages from its first, unless it is being read: the
   * messages the courier holds already are skipped (enqueue ignores them), the others queued.
   */
  async function findSenders(): Promise<void> {
    lookingForSenders = true;
    try {
      for (const sender of await handoverSenders(deps)) {
        const key = senderKey(sender);
        if (readings.has(key)) continue;
        readings.set(key, { sender });
        offer(key);
      }
    } finally {
      lookingForSenders = false;
    }
  }

  return {
    /** Start-up: queues the first page of every sender's waiting messages; later pages follow as lanes drain. */
    async resume(): Promise<void> {
      await findSenders();
      await reader;
    },
    /** Looks for senders again unless a look is under way; a failure is logged, and the next rescan tries again. */
    rescan(): void {
      if (stopped || lookingForSenders) return;
      findSenders().catch((error: unknown) => {
        if (!isOutage(error)) deps.log.error({ err: error }, 'looking for messages awaiting hand-over failed');
      });
    },
    /** The courier started a message of `sender`: read its next page if its lane runs low. */
    drained(sender: HandoverSender): void {
      offer(senderKey(sender));
    },
    /** Whether a page is being read or due. */
    get busy(): boolean {
      return reader !== undefined || lookingForSenders;
    },
    /** Resolves once no page is being read. */
    async settled(): Promise<void> {
      while (reader !== undefined) await reader;
    },
    stop(): void {
      stopped = true;
      due.clear();
      readings.clear();
    },
  };
}
