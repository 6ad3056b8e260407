import type { CarrierName } from '../domain/carriers.ts';
import { createExpiringMemory } from '../domain/expiring-memory.ts';
import { type Clock, systemClock } from './clock.ts';

/** How long a carrier's answer on which service reaches a number is kept, and for how many numbers at most. */
const LOOKUP_KEPT_MS = 10 * 60 * 1000;
const LOOKUPS_KEPT = 10_000;

export type LookupService = 'iMessage' | 'SMS';

/** How a carrier is doing, from this process's own dealings with it. */
export type CarrierHealth = {
  carrier: CarrierName;
  /** True after its last request succeeded, false after it failed, null before the first. */
  reachable: boolean | null;
  /** Its last failure (a request that failed, a refusal), without secrets. */
  lastError: string | null;
  lastErrorAt: number | null;
  /** Messages it accepted from textrelay. */
  sends: number;
  /** Status events and inbound messages it reported to textrelay. */
  events: number;
};

/** A change to a group chat, as its carrier is asked to make it. */
export type CarrierGroupEdit =
  | { kind: 'add_recipient' | 'remove_recipient'; number: string }
  | { kind: 'rename'; name: string }
  | { kind: 'photo'; photo: { bytes: Buffer; contentType: string } | null };

/**
 * What a carrier makes in the phone network itself beyond sending (BlueBubbles: through its
 * Private API). Each call either does it or throws an AppError, having changed nothing.
 */
export type CarrierLineActions = {
  /** Changes the group chat the carrier knows by `chatId` (the group's transport id). */
  editGroup(chatId: string, edit: CarrierGroupEdit): Promise<void>;
  /** Shows or hides "typing…" in the line's conversation with `number`. */
  typing(input: { number: string; state: 'start' | 'stop' }): Promise<void>;
};

/** A carrier as the app and the services see it: its health, and the endpoint its webhooks post to. */
export type RegisteredCarrier = {
  readonly name: CarrierName;
  /** The carrier in all; with `line`, its reachability beside that line's own last error and counts (lines.getState). */
  health(line?: string): CarrierHealth;
  /** Answers the carrier's requests under /webhooks/carriers/<name>/ (the full request, path included). */
  webhooks(request: Request): Promise<Response>;
  /** Which service reaches a number, when the carrier can tell without saying whom its line talks with (BlueBubbles: Apple's availability). */
  lookup?(number: string): Promise<LookupService | undefined>;
  /** Group changes and typing indicators, for a carrier that makes them itself. */
  actions?: CarrierLineActions;
  /** Why the carrier's account cannot serve these numbers as lines (Twilio: not among its numbers); undefined when it can. */
  refuseLines?(numbers: readonly string[]): Promise<string | undefined>;
};

/**
 * The carriers this process delivers through. Filled once at start (`register`), before requests
 * are served; empty with the sandbox and the upstream relay.
 */
export function createCarrierDirectory(clock: Clock = systemClock) {
  const carriers = new Map<string, RegisteredCarrier>();
  const lookups = createExpiringMemory<LookupService>(LOOKUPS_KEPT, LOOKUP_KEPT_MS);
  /** Lines bound to a configured carrier that it cannot serve now, why (e.g. its account no longer holds the number), and since when. */
  const offline = new Map<string, { reason: string; since: number }>();
  /** Each line's status as last shown, and since when: a line's status is derived anew at each look, its change is not stored. */
  const shown = new Map<string, { offline: boolean; since: number }>();
  let registeredAt: number | undefined;
  return {
    register(carrier: RegisteredCarrier): void {
      registeredAt ??= clock.now();
      carriers.set(carrier.name, carrier);
    },
    get(name: string): RegisteredCarrier | undefined {
      return carriers.get(name);
    },
    /** The carrier of a line bound to `name`; none for a line bound to no carrier, which no real carrier serves. */
    forLine(name: string | undefined): RegisteredCarrier | undefined {
      return name === undefined ? undefined : carriers.get(name);
    },
    /** True when textrelay delivers through its own carriers (not the sandbox, not the relay). */
    active(): boolean {
      return carriers.size > 0;
    },
    /** Records that its carrier cannot serve `line` now (`reason`), or, with undefined, that it can again. */
    setLineOffline(line: string, reason: string | undefined): void {
      if (reason === undefined) offline.delete(line);
      else offline.set(line, { reason, since: offline.get(line)?.since ?? clock.now() });
    },
    offlineReason(line: string): string | undefined {
      return offline.get(line)?.reason;
    },
    /**
     * When the line's status (`offline` now, or not) last changed, for lines.getState: a change seen
     * since the last look is dated now; at the first look, an OFFLINE line is dated from when it was
     * marked so, else from the carriers' start (or `unreachableAt`), and an ONLINE one from `createdAt`.
     */
    statusChangedAt(line: string, isOffline: boolean, createdAt: number, unreachableAt?: number | null): number {
      const seen = shown.get(line);
      if (seen?.offline === isOffline) return seen.since;
      const firstOffline = Math.max(createdAt, offline.get(line)?.since ?? unreachableAt ?? registeredAt ?? clock.now());
      const since = seen ? clock.now() : isOffline ? firstOffline : createdAt;
      shown.set(line, { offline: isOffline, since });
      return since;
    },
    health(): CarrierHealth[] {
      return [...carriers.values()].map((carrier) => carrier.health());
    },
    /** Whether carrier `name` is configured and can tell which service reaches a number. */
    canLookUp(name: string): boolean {
      return carriers.get(name)?.lookup !== undefined;
    },
    /** Carrier `name`'s answer on `number` while it is kept: asking again would cost the carrier a request. */
    keptLookup(name: string, number: string, now: number): LookupService | undefined {
      return lookups.get(`${name}\n${number}`, now);
    },
    /** Asks carrier `name` which service reaches `number`, and keeps a definite answer. */
    async lookup(name: string, number: string, now: number): Promise<LookupService | undefined> {
      const service = await carriers.get(name)?.lookup?.(number);
      if (service) lookups.set(`${name}\n${number}`, service, now);
      return service;
    },
  };
}

export type CarrierDirectory = ReturnType<typeof createCarrierDirectory>;
