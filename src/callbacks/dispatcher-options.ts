import { outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { parseRetrySchedule } from '../domain/retry-policy.ts';

export type DispatcherOptions = {
  /** Pauses between attempts, in ms (contract default 5 s ... 24 h); a delivery fails once they are spent. */
  retryScheduleMs: readonly number[];
  /** The addresses callbacks may reach, checked on the address each connection goes to. */
  outboundPolicy: OutboundPolicy;
  /** One attempt's whole exchange (connect, answer, body). */
  timeoutMs?: number;
  /**
   * Posts in flight at once, overall, per destination host (so one slow receiver cannot take every
   * slot) and per account (so one account's backlog cannot either). A host's slots are shared
   * between the accounts posting there, an eighth kept for newcomers (domain/claim-slots.ts).
   */
  concurrency?: number;
  perHostConcurrency?: number;
  perAccountConcurrency?: number;
  /**
   * How long a claim holds a row; a dispatcher that dies mid-post gives it up after this, and another
   * (whose poll sees it lapse) takes it over. Longer than timeoutMs, with room to record the answer.
   */
  leaseMs?: number;
  /** The loop also polls this often: other processes (CLI commands, other instances) write outbox rows and let leases lapse. */
  pollIntervalMs?: number;
  /** On stop, how long posts in flight may take to finish before their rows are given back. */
  shutdownGraceMs?: number;
  /** Jitter source, in [0, 1). */
  random?: () => number;
};

export const DISPATCHER_DEFAULTS = {
  timeoutMs: 10_000,
  concurrency: 256,
  perHostConcurrency: 64,
  perAccountConcurrency: 64,
  // With the 1 s poll, an instance killed mid-post has its callbacks taken over within 21 s.
  leaseMs: 20_000,
  pollIntervalMs: 1_000,
  shutdownGraceMs: 5_000,
} as const;

export type DispatcherSettings = Required<DispatcherOptions>;

export function dispatcherSettings(options: DispatcherOptions): DispatcherSettings {
  return { ...DISPATCHER_DEFAULTS, ...options, random: options.random ?? Math.random };
}

/** The options a server builds from its configuration. */
export function dispatcherOptionsFromConfig(config: {
  TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: string;
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: boolean;
  TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: boolean;
}): DispatcherOptions {
  return {
    retryScheduleMs: parseRetrySchedule(config.TEXTRELAY_WEBHOOK_RETRY_SCHEDULE),
    outboundPolicy: outboundPolicyOf(config),
  };
}
