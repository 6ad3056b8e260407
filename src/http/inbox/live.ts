import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { NotifierHub } from '../../services/notifier.ts';
import type { AppEnv } from '../env.ts';

/** Open tabs per account: a new one beyond this ends the oldest, the tab most likely forgotten. */
const STREAMS_PER_ACCOUNT = 8;
/** Open streams in all: each holds a connection, so the process refuses more rather than run out of sockets. */
const STREAMS_IN_ALL = 512;
/** A comment line this often keeps proxies from closing an idle stream and finds clients that went away. */
const HEARTBEAT_MS = 25_000;
/**
 * A burst of activity (the several events of one ingest batch or sandbox step) becomes one
 * refresh; the wait also lets a signal sent inside a transaction reach the client after its commit.
 */
const COALESCE_MS = 50;

/**
 * Server-sent events telling an account's open pages that something changed (`event: activity`);
 * the page then fetches its live parts again. The stream carries no data of its own, so it can
 * never show anything the page itself would not.
 */
export function createLiveStreams(hub: Pick<NotifierHub, 'watchAccount'>) {
  const byAccount = new Map<string, Set<() => void>>();
  let inAll = 0;

  return (c: Context<AppEnv>): Response => {
    if (inAll >= STREAMS_IN_ALL) return c.text('Too many live views open; reload later', 503);
    const accountId = c.get('account').id;
    const ofAccount = byAccount.get(accountId) ?? new Set<() => void>();
    byAccount.set(accountId, ofAccount);
    if (ofAccount.size >= STREAMS_PER_ACCOUNT) ofAccount.values().next().value?.();
    inAll += 1;

    return streamSSE(c, async (stream) => {
      let end = () => {};
      const ended = new Promise<void>((resolve) => (end = resolve));
      ofAccount.add(end);
      let pending: NodeJS.Timeout | undefined;
      const unwatch = hub.watchAccount(accountId, {
        activity() {
          pending ??= setTimeout(() => {
            pending = undefined;
            void stream.writeSSE({ event: 'activity', data: '' });
          }, COALESCE_MS);
        },
        end,
      });
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end);
      try {
        // Reconnect after 2 s if the stream drops (a restart): the page then refreshes what it missed.
        await stream.writeSSE({ event: 'ready', data: '', retry: 2000 });
        await ended;
      } finally {
        clearInterval(heartbeat);
        clearTimeout(pending);
        unwatch();
        ofAccount.delete(end);
        if (ofAccount.size === 0 && byAccount.get(accountId) === ofAccount) byAccount.delete(accountId);
        inAll -= 1;
      }
    });
  };
}
