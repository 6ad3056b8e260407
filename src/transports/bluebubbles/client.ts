import type { FormData } from 'undici';
import type { OutboundPolicy } from '../../domain/address-policy.ts';
import { parseJson } from '../../domain/lenient-json.ts';
import { createGuardedPool } from '../../outbound/guarded-client.ts';
import { VERSION } from '../../version.ts';

export type BlueBubblesClientOptions = {
  /** TEXTRELAY_BLUEBUBBLES_URL: the server's address, e.g. http://192.168.1.20:1234 or its tunnel. */
  url: string;
  /** TEXTRELAY_BLUEBUBBLES_PASSWORD: travels as the `guid` query parameter of every request. */
  password: string;
  outboundPolicy: OutboundPolicy;
  timeouts?: Partial<BlueBubblesTimeouts>;
};

/** `sendMs` covers the synchronous send calls, which BlueBubbles answers only once Messages stored the row (up to 2 minutes). */
export type BlueBubblesTimeouts = { connectMs: number; callMs: number; sendMs: number };

const DEFAULT_TIMEOUTS: BlueBubblesTimeouts = { connectMs: 5_000, callMs: 15_000, sendMs: 150_000 };
/** The largest answer taken from the server, an attachment's file included. */
export const MAX_ANSWER_BYTES = 25 * 1024 * 1024;

/** The server answered with an error envelope: `status` is its HTTP status, `detail` its `error.message` (or `error.error`). */
export class BlueBubblesError extends Error {
  constructor(
    readonly status: number,
    readonly summary: string,
    readonly detail: string | undefined,
    readonly errorType: string | undefined,
    readonly data: unknown,
  ) {
    super(
      detail && detail !== summary
        ? `BlueBubbles answered ${status}: ${summary} (${detail})`
        : `BlueBubbles answered ${status}: ${summary}`,
    );
    this.name = 'BlueBubblesError';
  }
}

/** No answer at all: refused, reset, timed out. The message never says the password. */
export class BlueBubblesUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlueBubblesUnreachable';
  }
}

export type CallOptions = {
  query?: Record<string, string | undefined>;
  json?: unknown;
  form?: FormData;
  /** The long timeout of the synchronous sends. */
  slow?: boolean;
};

export type Download = { contentType: string; bytes: Buffer };

/** Replaces every occurrence of the password (raw or encoded either way) in text bound for a log or an error message. */
export function redactPassword(text: string, password: string): string {
  if (password === '') return text;
  let redacted = text;
  const queryForm = new URLSearchParams({ guid: password }).toString().slice('guid='.length);
  for (const form of new Set([password, encodeURIComponent(password), queryForm])) redacted = redacted.split(form).join('[redacted]');
  return redacted;
}

/** How a text names the BlueBubbles server instead of its address. */
const SERVER = 'the BlueBubbles server';
const IP_ADDRESS = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\[[0-9a-fA-F:.]+\](?::\d+)?/g;

/**
 * Replaces the server's address (its URL, host, and any IP address, which a resolved name shows)
 * in a text a tenant may see: the Mac's address on the operator's network is not theirs to know.
 */
export function hideServerAddress(text: string, url: string): string {
  const base = new URL(url);
  let hidden = text;
  for (const form of [base.origin, base.host, base.hostname]) if (form !== '') hidden = hidden.split(form).join(SERVER);
  return hidden.replace(IP_ADDRESS, SERVER);
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads an answer's envelope; the docs put the error text in `error.error`, the source in `error.message`. */
export function envelopeError(status: number, body: unknown, redact: (text: string) => string): BlueBubblesError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const error = (typeof envelope.error === 'object' && envelope.error !== null ? envelope.error : {}) as Record<string, unknown>;
  const summary = redact(textOf(envelope.message) ?? `HTTP ${status}`);
  const said = textOf(error.message) ?? textOf(error.error);
  const detail = said === undefined ? undefined : redact(said);
  return new BlueBubblesError(status, summary, detail, textOf(error.type), envelope.data ?? null);
}

/**
 * The REST client of a BlueBubbles server, through the guarded outbound client. Every call answers
 * the envelope's `data`, or throws BlueBubblesError (an error envelope) or BlueBubblesUnreachable.
 */
export function createBlueBubblesClient(options: BlueBubblesClientOptions) {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const pool = createGuardedPool(base.origin, options.outboundPolicy, {
    connections: 8,
    connect: { timeout: timeouts.connectMs },
    maxResponseSize: MAX_ANSWER_BYTES,
  });
  const redact = (text: string) => hideServerAddress(redactPassword(text, options.password), options.url);

  function pathOf(path: string, query: CallOptions['query'] = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
    search.set('guid', options.password);
    return `${prefix}/api/v1${path}?${search}`;
  }

  async function raw(method: string, path: string, call: CallOptions) {
    const waitMs = call.slow ? timeouts.sendMs : timeouts.callMs;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `textrelay/${VERSION}` };
    if (call.json !== undefined) headers['content-type'] = 'application/json';
    try {
      return await pool.request({
        method: method as 'GET',
        path: pathOf(path, call.query),
        headers,
        body: call.form ?? (call.json === undefined ? undefined : JSON.stringify(call.json)),
        headersTimeout: waitMs,
        bodyTimeout: waitMs,
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      const message = error instanceof Error ? `${error.message}${cause}` : String(error);
      throw new BlueBubblesUnreachable(redact(`BlueBubbles is unreachable (${method} ${path}): ${message}`));
    }
  }

  async function call(method: string, path: string, callOptions: CallOptions = {}): Promise<unknown> {
    const answer = await raw(method, path, callOptions);
    let text: string;
    try {
      text = await answer.body.text();
    } catch (error) {
      throw new BlueBubblesUnreachable(redact(`BlueBubbles stopped answering (${method} ${path}): ${(error as Error).message}`));
    }
    const body = parseJson(text);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return (body as { data?: unknown } | undefined)?.data ?? null;
    throw envelopeError(answer.statusCode, body, redact);
  }

  /** A file (an attachment, a group icon): its bytes and type, or the error envelope. */
  async function download(path: string, query?: CallOptions['query']): Promise<Download> {
    const answer = await raw('GET', path, { query, slow: true });
    if (answer.statusCode < 200 || answer.statusCode > 299) {
      throw envelopeError(answer.statusCode, parseJson(await answer.body.text()), redact);
    }
    const type = answer.headers['content-type'];
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    return { contentType: (typeof type === 'string' ? type : 'application/octet-stream').split(';')[0]!.trim(), bytes };
  }

  return { call, download, redact, close: () => pool.close() };
}

export type BlueBubblesClient = ReturnType<typeof createBlueBubblesClient>;
