import type { UnroutedInboundRow } from '../db/rows.ts';
import type { OutboxDepth } from '../db/store.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '../domain/status.ts';
import type { ServiceDeps } from './deps.ts';

type StatsDeps = Pick<ServiceDeps, 'store' | 'clock'>;

/** How long a given-up delivery keeps its destination on the failing list. */
export const FAILING_WINDOW_MS = 24 * 60 * 60 * 1000;

export type GatewayStats = {
  /** Every status, zero included: a status nobody is in is still a line to graph. */
  messages: Record<MessageStatus, number>;
  outbox: OutboxDepth;
  /** How long the longest-waiting due delivery has waited past its due time; 0 when none is due. */
  oldestDueAgeMs: number;
  /** Inbound messages kept because no account owns the line they arrived on. */
  unroutedInbound: number;
};

/** A destination host whose callbacks are failing: its URLs' retrying and recently given-up deliveries together. */
export type FailingDestination = {
  host: string;
  retrying: number;
  givenUp: number;
  lastFailureAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
};

/** The gateway's state right now, read from the database (what /metrics exposes and `textrelay status` prints). */
export async function getGatewayStats(deps: StatsDeps): Promise<GatewayStats> {
  const now = deps.clock.now();
  const counted = await deps.store.stats.messagesByStatus();
  const messages = Object.fromEntries(MESSAGE_STATUSES.map((status) => [status, counted[status] ?? 0])) as Record<MessageStatus, number>;
  const oldestDueAt = await deps.store.stats.oldestDueAt(now);
  return {
    messages,
    outbox: await deps.store.stats.outboxDepth(now),
    oldestDueAgeMs: oldestDueAt === null ? 0 : now - oldestDueAt,
    unroutedInbound: await deps.store.unrouted.count(),
  };
}

export type UnroutedInbound = UnroutedInboundRow;

/** The latest inbound messages no account owns the line of, newest first. */
export async function latestUnroutedInbound(deps: StatsDeps, limit: number): Promise<UnroutedInbound[]> {
  return deps.store.unrouted.latest(limit);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    // Stored URLs were validated when given; an unparsable one still deserves a line.
    return url;
  }
}

/** Hosts with deliveries retrying now or given up within `windowMs`, the most affected first. */
export async function listFailingDestinations(deps: StatsDeps, windowMs = FAILING_WINDOW_MS): Promise<FailingDestination[]> {
  const byHost = new Map<string, FailingDestination>();
  for (const url of await deps.store.stats.failingUrls(deps.clock.now() - windowMs)) {
    const host = hostOf(url.url);
    const entry = byHost.get(host) ?? { host, retrying: 0, givenUp: 0, lastFailureAt: 0, lastStatusCode: null, lastError: null };
    entry[url.kind] += url.count;
    if (url.lastFailureAt >= entry.lastFailureAt) {
      entry.lastFailureAt = url.lastFailureAt;
      entry.lastStatusCode = url.lastStatusCode;
      entry.lastError = url.lastError;
    }
    byHost.set(host, entry);
  }
  return [...byHost.values()].sort((a, b) => b.retrying + b.givenUp - (a.retrying + a.givenUp) || a.host.localeCompare(b.host));
}
