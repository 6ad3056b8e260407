import { z } from 'zod';
import { type Config, outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { parseJson } from '../domain/lenient-json.ts';
import { createGuardedPool } from '../outbound/guarded-client.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../services/handover.ts';
import type { ProviderCredentials } from '../services/provider.ts';
import { providerAccountsInUse } from '../services/upstream-credentials.ts';
import { VERSION } from '../version.ts';
import { type Transport, TransportRefusal } from './transport.ts';
import { createRegistrations, DEFAULT_REGISTRATION_DELAYS_MS } from './upstream-registration.ts';

export type UpstreamOptions = {
  /** TEXTRELAY_UPSTREAM_URL: a provider speaking this same API (another textrelay, or the public service). */
  url: string;
  keyId: string;
  secret: string;
  /** TEXTRELAY_PUBLIC_URL: where the provider reaches our /webhooks/*. */
  publicUrl: string;
  /** Told each provider account's webhook secret once its receive webhook is registered: it signs that account's callbacks. */
  onWebhookSecret: (secret: string, keyId: string) => void;
  timeouts?: Partial<UpstreamTimeouts>;
  /** Pauses between attempts to register the receive webhook; the last one repeats until it succeeds. */
  registrationRetryDelaysMs?: readonly number[];
  /** The addresses the provider may be on: a private one only when the policy allows private callbacks. */
  outboundPolicy: OutboundPolicy;
  /** Keep-alive connections to the provider. */
  connections?: number;
  /** How often to look for provider accounts given to tenants since the start, and register there. */
  rescanMs?: number;
};

export type UpstreamTimeouts = { connectMs: number; headersMs: number; bodyMs: number };

/** A send is a small JSON exchange: a provider silent for 10 s is down, and the courier retries later. */
const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 };
const DEFAULT_CONNECTIONS = 16;
const DEFAULT_RESCAN_MS = 30_000;

/** 4xx answers that say "not now" rather than "no": timeout, idempotency key still in flight, too early, rate limited. */
const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

const SendAnswer = z.object({ message_handle: z.string().min(1), group_id: z.string().optional() });
const ErrorAnswer = z.object({
  error_code: z.number().int().optional(),
  error_message: z.string().optional(),
  message: z.string().optional(),
});

export type UpstreamTransport = Transport & {
  /** Resolves with the relay's provider account's webhook secret once its receive webhook is registered (after `start`). */
  registered(): Promise<string>;
  /** Resolves once the relay's receive and outbound webhooks are in the relay's provider account's /api/account/webhooks lists. */
  listsRegistered(): Promise<void>;
};

/** An upstream answer that was neither a success nor a refusal: the courier retries. */
class UpstreamUnavailable extends Error {}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
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
 * (a message handed over twice after a crash is sent once), each as its account's provider account
 * (its own, else the relay's), status callbacks to our /webhooks/status, and our /webhooks/* registered
 * at every provider account in use.
 */
export function createUpstreamTransport(deps: ServiceDeps, options: UpstreamOptions): UpstreamTransport {
  const base = new URL(options.url);
  const prefix = withoutTrailingSlash(base.pathname);
  const publicUrl = withoutTrailingSlash(options.publicUrl);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const relay: ProviderCredentials = { keyId: options.keyId, secret: options.secret };
  // One pool for every provider account: they are all at the one provider's origin.
  const pool = createGuardedPool(base.origin, options.outboundPolicy, {
    connections: options.connections ?? DEFAULT_CONNECTIONS,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
  const inFlight = new Set<Promise<unknown>>();
  let rescans: NodeJS.Timeout | undefined;
  let started = false;

  async function post(
    credentials: ProviderCredentials,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: unknown }> {
    const work = pool
      .request({
        method: 'POST',
        path: `${prefix}${path}`,
        headers: {
          'content-type': 'application/json',
          'user-agent': `textrelay/${VERSION}`,
          'svc-api-key-id': credentials.keyId,
          'svc-api-secret-key': credentials.secret,
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

  const registrations = createRegistrations(deps, {
    publicUrl,
    post,
    onWebhookSecret: options.onWebhookSecret,
    retryDelaysMs: options.registrationRetryDelaysMs ?? DEFAULT_REGISTRATION_DELAYS_MS,
  });
  const relayRegistration = () => registrations.ensure(relay);

  /** Registers at every provider account the tenants use; one given since the start is found here or at its first send. */
  async function registerEverywhere(): Promise<void> {
    try {
      for (const credentials of await providerAccountsInUse(deps, relay)) registrations.ensure(credentials);
    } catch (error) {
      deps.log.warn({ err: error }, 'could not read the provider accounts in use; will look again');
    }
  }

  async function send(message: OutboundMessage): Promise<HandoverReceipt> {
    const credentials = message.upstream ?? relay;
    if (started) registrations.ensure(credentials);
    const request = upstreamRequestFor(message, `${publicUrl}/webhooks/status`);
    const { status, json } = await post(credentials, request.path, request.body, { 'idempotency-key': message.handle });
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

  return {
    name: 'upstream',
    send,
    start() {
      started = true;
      relayRegistration();
      void registerEverywhere();
      rescans = setInterval(() => void registerEverywhere(), options.rescanMs ?? DEFAULT_RESCAN_MS).unref();
    },
    registered: () => relayRegistration().registered,
    listsRegistered: () => relayRegistration().listsRegistered,
    async stop() {
      clearInterval(rescans);
      registrations.stop();
      await Promise.allSettled([...inFlight]);
      await pool.close();
    },
  };
}

/** The options the validated configuration gives (loadConfig refuses upstream mode without these variables). */
export function upstreamOptionsFromConfig(config: Config, onWebhookSecret: UpstreamOptions['onWebhookSecret']): UpstreamOptions {
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
