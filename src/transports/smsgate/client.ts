import type { z } from 'zod';
import type { OutboundPolicy } from '../../domain/address-policy.ts';
import { parseJson } from '../../domain/lenient-json.ts';
import { createGuardedPool } from '../../outbound/guarded-client.ts';
import { VERSION } from '../../version.ts';
import { SgDevices, SgErrorBody, SgInbox, type SgInboxItem, SgMessage, SgWebhook, SgWebhooks } from './schemas.ts';

/** An answer of SMSGate's that was not a success: its HTTP status and its words. */
export class SmsGateError extends Error {
  constructor(
    readonly status: number,
    readonly said: string,
  ) {
    super(`SMSGate answered ${status}${said === '' ? '' : `: ${said}`}`);
    this.name = 'SmsGateError';
  }
}

/** A phone on Wi-Fi may take seconds to wake; silent for 15 s it is away for now, and the courier retries. */
const TIMEOUTS = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 };
/** The phone's inbox read a page at a time (the app's own maximum). */
export const INBOX_PAGE = 500;

export type SmsGateSend = {
  id: string;
  deviceId?: string | undefined;
  textMessage: { text: string };
  phoneNumbers: string[];
  withDeliveryReport: boolean;
};

/** The phone's own server has no path prefix; a cloud or private server's API sits under …/3rdparty/v1. */
export function isLocalServer(url: string): boolean {
  return new URL(url).pathname.replace(/\/+$/, '') === '';
}

/**
 * The few SMSGate calls textrelay makes (carriers-smsgate.md C.1-C.6), JSON with basic auth,
 * through the guarded client, against TEXTRELAY_SMSGATE_URL.
 */
export function createSmsGateClient(options: { url: string; username: string; password: string; policy: OutboundPolicy }) {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const pool = createGuardedPool(base.origin, options.policy, {
    connections: 4,
    connect: { timeout: TIMEOUTS.connectMs },
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
  });

  async function request(method: 'GET' | 'POST' | 'DELETE', path: string, json?: unknown) {
    const answer = await pool.request({
      method,
      path: `${prefix}${path}`,
      headers: {
        authorization,
        accept: 'application/json',
        'user-agent': `textrelay/${VERSION}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    // The body is read whatever the status: an unread body holds its connection.
    const body = parseJson(await answer.body.text());
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      const error = SgErrorBody.safeParse(body);
      throw new SmsGateError(answer.statusCode, (error.success && error.data.message) || '');
    }
    return { body, headers: answer.headers };
  }

  function read<T>(body: unknown, schema: z.ZodType<T>): T {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    throw new SmsGateError(200, 'an answer textrelay could not read');
  }

  const local = isLocalServer(options.url);
  return {
    local,
    /** The phones the credentials reach: the phone itself (local server), or the account's devices. */
    async devices() {
      return read((await request('GET', local ? '/device' : '/devices')).body, SgDevices);
    },
    /** POST /messages: the phone (or server) has it queued; throws SmsGateError (409: that id is there already). */
    async send(message: SmsGateSend): Promise<SgMessage> {
      return read((await request('POST', '/messages', message)).body, SgMessage);
    },
    /** GET /messages/{id}: where the message is now, per recipient. */
    async message(id: string): Promise<SgMessage> {
      return read((await request('GET', `/messages/${encodeURIComponent(id)}`)).body, SgMessage);
    },
    async webhooks() {
      return read((await request('GET', '/webhooks')).body, SgWebhooks);
    },
    /** Registers or replaces (same id) one webhook. */
    async putWebhook(webhook: { id: string; url: string; event: string; deviceId?: string | undefined }) {
      return read((await request('POST', '/webhooks', webhook)).body, SgWebhook);
    },
    async deleteWebhook(id: string): Promise<void> {
      await request('DELETE', `/webhooks/${encodeURIComponent(id)}`);
    },
    /** One page of the phone's received SMS since `from`, newest first (local server only; a server answers 501). */
    async inbox(from: Date, offset: number): Promise<SgInboxItem[]> {
      const query = new URLSearchParams({ type: 'SMS', from: from.toISOString(), limit: String(INBOX_PAGE), offset: String(offset) });
      return read((await request('GET', `/inbox?${query}`)).body, SgInbox);
    },
    close: () => pool.close(),
  };
}

export type SmsGateClient = ReturnType<typeof createSmsGateClient>;
