import { z } from 'zod';
import { type Config, outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { createGuardedPool } from '../outbound/guarded-client.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../services/handover.ts';
import { VERSION } from '../version.ts';
import { type Transport, TransportRefusal } from './transport.ts';

export type UpstreamOptions = {
  /** TEXTRELAY_UPSTREAM_URL: a provider speaking this same API (another textrelay, or the public service). */
  url: string;
  keyId: string;
  secret: string;
  /** TEXTRELAY_PUBLIC_URL: where the provider reaches our /webhooks/*. */
  publicUrl: string;
  /** Told the upstream account's webhook secret once the receive webhook is registered: it signs the callbacks we ingest. */
  onWebhookSecret: (secret: string) => void;
  timeouts?: Partial<UpstreamTimeouts>;
  /** Pauses between attempts to register the receive webhook; the last one repeats until it succeeds. */
  registrationRetryDelaysMs?: readonly number[];
  /** The addresses the provider may be on: a private one only when the policy allows private callbacks. */
  outboundPolicy: OutboundPolicy;
  /** Keep-alive connections to the provider. */
  connections?: number;
};

export type UpstreamTimeouts = { connectMs: number; headersMs: number; bodyMs: number };

/** A send is a small JSON exchange: a provider silent for 10 s is down, and the courier retries later. */
const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 };
const DEFAULT_REGISTRATION_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 300_000];
const DEFAULT_CONNECTIONS = 16;

/** 4xx answers that say "not now" rather than "no": timeout, idempotency key still in flight, too early, rate limited. */
const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

const SendAnswer = z.object({ message_handle: z.string().min(1), group_id: z.string().optional() });
const ErrorAnswer = z.object({
  error_code: z.number().int().optional(),
  error_message: z.string().optional(),
  message: z.string().optional(),
});
const RegistrationAnswer = z.object({ secret: z.string().min(1) });

export type UpstreamTransport = Transport & {
  /** Resolves with the upstream's webhook secret once the receive webhook is registered (after `start`). */
  registered(): Promise<string>;
  /** Resolves once the relay's receive and outbound webhooks are in the provider's /api/account/webhooks lists. */
  listsRegistered(): Promise<void>;
};

/** The relay's own entries in the provider's /api/account/webhooks lists, and the path each one POSTs to. */
const RELAY_WEBHOOKS = [
  { type: 'receive', path: '/webhooks/receive' },
  { type: 'outbound', path: '/webhooks/status' },
] as const;

/** An upstream answer that was neither a success nor a refusal: the courier retries. */
class UpstreamUnavailable extends Error {}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The upstream request for a message: what our API's sends take, minus what is ours alone
 * (callbacks). The line goes as from_number: the provider sends from the account's own line, so
 * replies come back addressed to it and reach that account only.
 */
export function upstreamRequestFor(message: OutboundMessage, statusCallback: string): { path: string; body: Record<string, unknown> } {
  const common: Record<string, unknown> = { from_number: message.lineNumber, status_callback: statusCallback };
  if (message.content !== '') common.content = message.content;
  if (message.mediaUrl !== '') common.media_url = message.mediaUrl;
  if (message.sendStyle !== '') common.send_style = message.sendStyle;
  if (message.seatId !== null) common.seat_id = message.seatId;
  if (message.replyTo !== null) {
    common.reply_to =
      message.replyTo.partIndex === null
        ? { message_handle: message.replyTo.handle }
        : { message_handle: message.replyTo.handle, part_index: message.replyTo.partIndex };
  }
  if (message.messageType === 'message') {
    return { path: '/api/send-message', body: { number: message.recipients[0], ...common } };
  }
  // The upstream's own group id once known, so its members see one conversation, not a new group per send.
  const target = message.transportGroupId === null ? { numbers: message.recipients } : { group_id: message.transportGroupId };
  return { path: '/api/send-group-message', body: { ...target, ...common } };
}

/**
 * Relays messages to a provider that speaks this API: sends with our handle as Idempotency-Key
 * (a message handed over twice after a crash is sent once), status callbacks to our
 * /webhooks/status, and at start our /webhooks/receive registered as the account's receive webhook.
 */
export function createUpstreamTransport(deps: ServiceDeps, options: UpstreamOptions): UpstreamTransport {
  const base = new URL(options.url);
  const prefix = withoutTrailingSlash(base.pathname);
  const publicUrl = withoutTrailingSlash(options.publicUrl);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const registrationDelays = options.registrationRetryDelaysMs ?? DEFAULT_REGISTRATION_DELAYS_MS;
  const pool = createGuardedPool(base.origin, options.outboundPolicy, {
    connections: options.connections ?? DEFAULT_CONNECTIONS,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
  const inFlight = new Set<Promise<unknown>>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let resolveRegistered: (secret: string) => void = () => {};
  const registration = new Promise<string>((resolve) => (resolveRegistered = resolve));

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
    const work = pool
      .request({
        method: 'POST',
        path: `${prefix}${path}`,
        headers: {
          'content-type': 'application/json',
          'user-agent': `textrelay/${VERSION}`,
          'svc-api-key-id': options.keyId,
          'svc-api-secret-key': options.secret,
          ...headers,
        },
        body: JSON.stringify(body),
      })
      // The body is read whatever the status: an unread body holds its connection.
      .then(async (answer) => ({ status: answer.statusCode, json: parseJson(await answer.body.text()) }));
    inFlight.add(work);
    try {
      return await work;
    } finally {
      inFlight.delete(work);
    }
  }

  async function send(message: OutboundMessage): Promise<HandoverReceipt> {
    const request = upstreamRequestFor(message, `${publicUrl}/webhooks/status`);
    const { status, json } = await post(request.path, request.body, { 'idempotency-key': message.handle });
    if (status >= 200 && status < 300) {
      const answer = SendAnswer.safeParse(json);
      if (!answer.success) throw new UpstreamUnavailable(`upstream answered ${status} without a message_handle`);
      return { transportHandle: answer.data.message_handle, transportGroupId: answer.data.group_id || undefined };
    }
    if (status >= 400 && status < 500 && !RETRYABLE_4XX.has(status)) {
      const refusal = ErrorAnswer.safeParse(json);
      const details = refusal.success ? refusal.data : {};
      throw new TransportRefusal(
        details.error_code ?? ErrorCode.sendFailed,
        details.error_message ?? details.message ?? `The upstream refused the message (HTTP ${status})`,
      );
    }
    throw new UpstreamUnavailable(`upstream answered ${status}`);
  }

  async function register(): Promise<string> {
    const { status, json } = await post('/accounts/webhooks', { webhooks: [`${publicUrl}/webhooks/receive`], type: 'receive' });
    const answer = RegistrationAnswer.safeParse(json);
    if (status < 200 || status >= 300 || !answer.success)
      throw new UpstreamUnavailable(`upstream answered ${status} to the webhook registration`);
    return answer.data.secret;
  }

  /** Adds one entry to the provider's list of that type; the provider keeps a URL already there once. */
  async function registerInList(type: string, url: string): Promise<void> {
    const { status, json } = await post('/api/account/webhooks', { webhooks: [url], type });
    if (status >= 200 && status < 300) return;
    const refusal = ErrorAnswer.safeParse(json);
    const said = refusal.success ? (refusal.data.error_message ?? refusal.data.message) : undefined;
    throw new UpstreamUnavailable(`upstream answered ${status}${said === undefined ? '' : `: ${said}`}`);
  }

  /**
   * Runs `work` until it succeeds, pausing by the registration schedule between attempts. Not fatal
   * meanwhile: sends work; only inbound messages and signed-only callbacks wait for it.
   */
  function untilRegistered<T>(
    what: { label: string; type: string; url: string },
    work: () => Promise<T>,
    done: (value: T) => void,
    attempt = 0,
  ): void {
    if (stopped) return;
    work().then(
      (value) => {
        if (stopped) return;
        deps.log.info({ type: what.type, url: what.url }, `${what.label} registered upstream`);
        done(value);
      },
      (error: unknown) => {
        if (stopped) return;
        const delay = registrationDelays[Math.min(attempt, registrationDelays.length - 1)] ?? DEFAULT_REGISTRATION_DELAYS_MS[0]!;
        deps.log.warn(
          { type: what.type, url: what.url, err: error, attempt, retryInMs: delay },
          `registering the ${what.label} upstream failed, will retry`,
        );
        const timer = setTimeout(() => {
          retryTimers.delete(timer);
          untilRegistered(what, work, done, attempt + 1);
        }, delay);
        retryTimers.add(timer);
      },
    );
  }

  const lists = RELAY_WEBHOOKS.map(({ type, path }) => {
    const url = `${publicUrl}${path}`;
    let resolve: () => void = () => {};
    const registeredInList = new Promise<void>((resolved) => (resolve = resolved));
    return {
      start: () => untilRegistered({ label: `${type} webhook list entry`, type, url }, () => registerInList(type, url), resolve),
      registeredInList,
    };
  });
  const listsRegistration = Promise.all(lists.map((list) => list.registeredInList)).then(() => undefined);

  return {
    name: 'upstream',
    send,
    start() {
      // v1 registration: its answer carries the secret that signs the provider's callbacks.
      untilRegistered({ label: 'receive webhook', type: 'receive', url: `${publicUrl}/webhooks/receive` }, register, (secret) => {
        options.onWebhookSecret(secret);
        resolveRegistered(secret);
      });
      for (const list of lists) list.start();
    },
    registered: () => registration,
    listsRegistered: () => listsRegistration,
    async stop() {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
      await pool.close();
    },
  };
}

/** The options the validated configuration gives (loadConfig refuses upstream mode without these variables). */
export function upstreamOptionsFromConfig(config: Config, onWebhookSecret: (secret: string) => void): UpstreamOptions {
  const {
    TEXTRELAY_UPSTREAM_URL: url,
    TEXTRELAY_UPSTREAM_KEY_ID: keyId,
    TEXTRELAY_UPSTREAM_SECRET: secret,
    TEXTRELAY_PUBLIC_URL: publicUrl,
  } = config;
  if (!url || !keyId || !secret || !publicUrl)
    throw new Error('the upstream transport needs TEXTRELAY_UPSTREAM_URL, _KEY_ID, _SECRET and TEXTRELAY_PUBLIC_URL');
  return { url, keyId, secret, publicUrl, onWebhookSecret, outboundPolicy: outboundPolicyOf(config) };
}
