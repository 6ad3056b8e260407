import type { CarrierName } from '../domain/carriers.ts';

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
  /** Which service reaches a number, when the carrier can tell (BlueBubbles: Apple's availability or the chat's history). */
  lookup?(number: string): Promise<'iMessage' | 'SMS' | undefined>;
  /** Group changes and typing indicators, for a carrier that makes them itself. */
  actions?: CarrierLineActions;
};

/**
 * The carriers this process delivers through. Filled once at start (`register`), before requests
 * are served; empty with the sandbox and the upstream relay.
 */
export function createCarrierDirectory() {
  const carriers = new Map<string, RegisteredCarrier>();
  return {
    register(carrier: RegisteredCarrier): void {
      carriers.set(carrier.name, carrier);
    },
    get(name: string): RegisteredCarrier | undefined {
      return carriers.get(name);
    },
    /** The carrier of a line bound to `name`; a line bound to none goes to the first registered, as its messages do. */
    forLine(name: string | undefined): RegisteredCarrier | undefined {
      return name === undefined ? carriers.values().next().value : carriers.get(name);
    },
    health(): CarrierHealth[] {
      return [...carriers.values()].map((carrier) => carrier.health());
    },
    /** The first answer of a carrier that can tell which service reaches `number`. */
    async lookup(number: string): Promise<'iMessage' | 'SMS' | undefined> {
      for (const carrier of carriers.values()) {
        const service = await carrier.lookup?.(number);
        if (service) return service;
      }
      return undefined;
    },
  };
}

export type CarrierDirectory = ReturnType<typeof createCarrierDirectory>;
