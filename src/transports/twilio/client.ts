import { z } from 'zod';
import type { OutboundPolicy } from '../../domain/address-policy.ts';
import { parseJson } from '../../domain/lenient-json.ts';
import { createGuardedPool } from '../../outbound/guarded-client.ts';
import { VERSION } from '../../version.ts';

/** Twilio's error body (B.2): its own code and words, beside the HTTP status. */
const ErrorBody = z.object({ code: z.number().int().optional(), message: z.string().optional() });
const MessageBody = z.object({ sid: z.string().min(1), status: z.string() });
const MessageResource = MessageBody.extend({ error_code: z.number().int().nullish(), error_message: z.string().nullish() });
const NumbersPage = z.object({
  incoming_phone_numbers: z.array(z.object({ sid: z.string(), phone_number: z.string(), sms_url: z.string().nullish() })),
  next_page_uri: z.string().nullish(),
});

export type TwilioAnswer = { status: number; json: unknown };
export type TwilioNumber = z.output<typeof NumbersPage>['incoming_phone_numbers'][number];

/** An answer of Twilio's that was not a success: its HTTP status, and its code and words when it gave them. */
export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    readonly said: string,
  ) {
    super(`Twilio answered ${status}${code === undefined ? '' : ` (${code})`}${said === '' ? '' : `: ${said}`}`);
    this.name = 'TwilioError';
  }
}

/** A request is a small form post: Twilio silent for 10 s is down for now, and the courier retries. */
const TIMEOUTS = { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 };

/**
 * The few Twilio REST calls textrelay makes (Messages, IncomingPhoneNumbers), form-encoded with
 * basic auth, through the guarded client, against TEXTRELAY_TWILIO_API_URL.
 */
export function createTwilioClient(options: { apiUrl: string; accountSid: string; authToken: string; policy: OutboundPolicy }) {
  const base = new URL(options.apiUrl);
  const prefix = `${base.pathname.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  const pool = createGuardedPool(base.origin, options.policy, {
    connections: 8,
    connect: { timeout: TIMEOUTS.connectMs },
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
  });

  async function request(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<TwilioAnswer> {
    const answer = await pool.request({
      method,
      path: path.startsWith('/2010-04-01/') ? path : `${prefix}${path}`,
      headers: {
        authorization,
        accept: 'application/json',
        'user-agent': `textrelay/${VERSION}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form?.toString(),
    });
    // The body is read whatever the status: an unread body holds its connection.
    return { status: answer.statusCode, json: parseJson(await answer.body.text()) };
  }

  function expect<T>(answer: TwilioAnswer, schema: z.ZodType<T>): T {
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = schema.safeParse(answer.json);
      if (parsed.success) return parsed.data;
      throw new TwilioError(answer.status, undefined, 'an answer textrelay could not read');
    }
    const error = ErrorBody.safeParse(answer.json);
    throw new TwilioError(answer.status, error.success ? error.data.code : undefined, (error.success && error.data.message) || '');
  }

  return {
    /** POST Messages.json; answers the message's sid, or throws TwilioError with Twilio's code. */
    async createMessage(form: URLSearchParams): Promise<{ sid: string; status: string }> {
      return expect(await request('POST', '/Messages.json', form), MessageBody);
    },
    /** GET Messages/{sid}.json: where the message is now, with Twilio's error code and words when it failed. */
    async fetchMessage(sid: string): Promise<z.output<typeof MessageResource>> {
      return expect(await request('GET', `/Messages/${encodeURIComponent(sid)}.json`), MessageResource);
    },
    /** Every number of the account, page by page. */
    async incomingNumbers(): Promise<TwilioNumber[]> {
      const numbers: TwilioNumber[] = [];
      let path: string | null | undefined = '/IncomingPhoneNumbers.json?PageSize=1000';
      while (path) {
        const page: z.output<typeof NumbersPage> = expect(await request('GET', path), NumbersPage);
        numbers.push(...page.incoming_phone_numbers);
        path = page.next_page_uri;
      }
      return numbers;
    },
    /** The account's numbers matching `number` (Twilio's PhoneNumber filter: a pattern, so the caller compares exactly). */
    async numbersLike(number: string): Promise<TwilioNumber[]> {
      const query = new URLSearchParams({ PhoneNumber: number, PageSize: '1000' });
      return expect(await request('GET', `/IncomingPhoneNumbers.json?${query}`), NumbersPage).incoming_phone_numbers;
    },
    /** Points the number's "A message comes in" webhook at `url` (POST). */
    async setSmsUrl(numberSid: string, url: string): Promise<void> {
      const form = new URLSearchParams({ SmsUrl: url, SmsMethod: 'POST' });
      expect(await request('POST', `/IncomingPhoneNumbers/${encodeURIComponent(numberSid)}.json`, form), z.unknown());
    },
    close: () => pool.close(),
  };
}

export type TwilioClient = ReturnType<typeof createTwilioClient>;
