/**
 * A Twilio account on 127.0.0.1 port 0 (carriers.md B.10): Messages.json with its refusals,
 * IncomingPhoneNumbers, media files, and the callbacks and inbound messages Twilio posts, signed
 * with the twilio package's own signing function, in any order and as often as a test says.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';

export const TWILIO_SID = 'AC00000000000000000000000000000001';
export const TWILIO_TOKEN = 'fake-twilio-auth-token-0123456789';

export type FakeTwilioNumber = { sid: string; phone_number: string; sms_url: string | null };
export type FakeTwilioMessage = {
  sid: string;
  form: URLSearchParams;
  status: string;
  errorCode: number | null;
  errorMessage: string | null;
  dateCreated: Date;
};

/** A small PNG, served as an MMS attachment. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function twilioId(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('hex')}`;
}

export async function startFakeTwilio(numbers: readonly string[]) {
  const owned: FakeTwilioNumber[] = numbers.map((phone_number) => ({ sid: twilioId('PN'), phone_number, sms_url: null }));
  const messages: FakeTwilioMessage[] = [];
  /** Every Messages.json create received, refused or not. */
  const attempts: URLSearchParams[] = [];
  /** Numbers that replied STOP: a send to one is refused with 21610. */
  const optedOut = new Set<string>();
  /** While set, a create is stored and its answer waits for it: the message went out, the answer is late. */
  let held: Promise<void> | undefined;
  /** While set, each create is stored at once and answered this many milliseconds later: a slow Twilio. */
  let answerDelayMs: (() => number) | undefined;
  let throttleNext = 0;
  let failNext = 0;
  let failFetchesNext = 0;
  /** The sid of every GET Messages/{sid}.json, in order. */
  const fetches: string[] = [];
  const prefix = `/2010-04-01/Accounts/${TWILIO_SID}`;
  const expectedAuth = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;

  /**
   * IncomingPhoneNumbers.json?PhoneNumber=…, as Twilio reads the filter: a pattern matched anywhere
   * in the number, digits only (`+` and spaces dropped), `*` standing for any digit.
   */
  function numbersLike(pattern: string) {
    const digits = pattern.replace(/[^\d*]/g, '');
    const matcher = new RegExp(digits.replace(/\*/g, '\\d'));
    const matches = digits === '' ? owned : owned.filter((number) => matcher.test(number.phone_number.replace(/\D/g, '')));
    return { incoming_phone_numbers: matches, next_page_uri: null, page: 0, page_size: 50 };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const error = (status: number, code: number, message: string) =>
        json(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname.startsWith('/media/')) return res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL_PNG);
      if (req.headers.authorization !== expectedAuth) return error(401, 20003, 'Authenticate');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (req.method === 'GET' && url.pathname === `${prefix}/IncomingPhoneNumbers.json` && url.searchParams.has('PhoneNumber'))
        return json(200, numbersLike(url.searchParams.get('PhoneNumber') ?? ''));
      if (req.method === 'GET' && url.pathname === `${prefix}/IncomingPhoneNumbers.json`)
        return json(200, { incoming_phone_numbers: owned, next_page_uri: null });
      const number = owned.find((n) => url.pathname === `${prefix}/IncomingPhoneNumbers/${n.sid}.json`);
      if (req.method === 'POST' && number) {
        number.sms_url = form.get('SmsUrl');
        return json(200, number);
      }
      if (req.method === 'POST' && url.pathname === `${prefix}/Messages.json`) {
        attempts.push(form);
        if (throttleNext > 0) {
          throttleNext -= 1;
          return error(429, 20429, 'Too Many Requests');
        }
        if (failNext > 0) {
          failNext -= 1;
          return error(503, 20500, 'Service Unavailable');
        }
        const to = form.get('To') ?? '';
        if (!/^\+[1-9]\d{6,14}$/.test(to)) return error(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
        if (optedOut.has(to)) return error(400, 21610, 'Attempt to send to unsubscribed recipient');
        if (!owned.some((n) => n.phone_number === form.get('From')))
          return error(400, 21606, "The 'From' phone number provided is not a valid message-capable Twilio phone number.");
        const message: FakeTwilioMessage = {
          sid: twilioId('SM'),
          form,
          status: 'queued',
          errorCode: null,
          errorMessage: null,
          dateCreated: new Date(),
        };
        messages.push(message);
        const answer = () => json(201, { sid: message.sid, status: 'queued', to, from: form.get('From'), body: form.get('Body') });
        if (answerDelayMs) return void setTimeout(answer, answerDelayMs());
        if (held === undefined) return answer();
        return void held.then(answer);
      }
      const fetchedSid = req.method === 'GET' && url.pathname.match(/\/Messages\/([^/]+)\.json$/)?.[1];
      if (fetchedSid) {
        fetches.push(decodeURIComponent(fetchedSid));
        if (failFetchesNext > 0) {
          failFetchesNext -= 1;
          return error(503, 20500, 'Service Unavailable');
        }
      }
      const fetched = messages.find((m) => url.pathname === `${prefix}/Messages/${m.sid}.json`);
      if (req.method === 'GET' && fetched) return json(200, resourceOf(fetched));
      return error(404, 20404, 'The requested resource was not found');
    });
  });
  /** A Message resource as Twilio's fetch answers it (twilio-oai api.v2010.account.message). */
  function resourceOf(message: FakeTwilioMessage) {
    const rfc2822 = (date: Date) => date.toUTCString().replace('GMT', '+0000');
    const uri = `${prefix}/Messages/${message.sid}`;
    return {
      account_sid: TWILIO_SID,
      api_version: '2010-04-01',
      body: message.form.get('Body') ?? '',
      date_created: rfc2822(message.dateCreated),
      date_sent: message.status === 'queued' ? null : rfc2822(message.dateCreated),
      date_updated: rfc2822(new Date()),
      direction: 'outbound-api',
      error_code: message.errorCode,
      error_message: message.errorMessage,
      from: message.form.get('From'),
      messaging_service_sid: null,
      num_media: message.form.has('MediaUrl') ? '1' : '0',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      sid: message.sid,
      status: message.status,
      subresource_uris: { media: `${uri}/Media.json`, feedback: `${uri}/Feedback.json` },
      to: message.form.get('To'),
      uri: `${uri}.json`,
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** POSTs a form as Twilio does: X-Twilio-Signature computed by the twilio package over the URL and the fields. */
  async function post(target: string, fields: Record<string, string>, signature?: string) {
    const response = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? getExpectedTwilioSignature(TWILIO_TOKEN, target, fields),
      },
      body: new URLSearchParams(fields),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
  }

  return {
    url,
    numbers: owned,
    messages,
    attempts,
    optedOut,
    /** The next `count` creates answer 429 (20429). */
    throttle(count: number) {
      throttleNext = count;
    },
    /** Creates from now on are stored at once and answered only when the returned function is called. */
    holdAnswers(): () => void {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    /** Creates from now on are stored at once and each answered `delayMs()` milliseconds later. */
    answerAfter(delayMs: () => number) {
      answerDelayMs = delayMs;
    },
    /** The next `count` creates answer 503. */
    failWith503(count: number) {
      failNext = count;
    },
    fetches,
    /** The next `count` GET Messages/{sid}.json answer 503. */
    failFetchesWith503(count: number) {
      failFetchesNext = count;
    },
    /** The message moves on at Twilio and its status callback is lost (textrelay was down): only a fetch tells. */
    settleSilently(message: FakeTwilioMessage, status: string, error?: { code: number; message: string }) {
      message.status = status;
      message.errorCode = error?.code ?? null;
      message.errorMessage = error?.message ?? null;
    },
    /** A status callback for a created message, to the StatusCallback it was given. */
    callback(message: FakeTwilioMessage, status: string, extra: Record<string, string> = {}, signature?: string) {
      message.status = status;
      const fields = {
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        AccountSid: TWILIO_SID,
        From: message.form.get('From') ?? '',
        To: message.form.get('To') ?? '',
        ApiVersion: '2010-04-01',
        ...extra,
      };
      return post(message.form.get('StatusCallback') ?? '', fields, signature);
    },
    /** An end user texts one of the numbers: posted to the number's SmsUrl, with media served by this fake. */
    inbound(input: { from: string; to: string; body: string; media?: number; extra?: Record<string, string>; signature?: string }) {
      const number = owned.find((n) => n.phone_number === input.to);
      if (!number?.sms_url) throw new Error(`${input.to} has no SmsUrl`);
      const sid = twilioId('SM');
      const fields: Record<string, string> = {
        MessageSid: sid,
        SmsSid: sid,
        SmsMessageSid: sid,
        AccountSid: TWILIO_SID,
        From: input.from,
        To: input.to,
        Body: input.body,
        NumMedia: String(input.media ?? 0),
        NumSegments: '1',
        SmsStatus: 'received',
        ApiVersion: '2010-04-01',
        FromCountry: 'US',
        ToCountry: 'US',
      };
      for (let index = 0; index < (input.media ?? 0); index++) {
        fields[`MediaUrl${index}`] = `${url}/media/ME${index}.png`;
        fields[`MediaContentType${index}`] = 'image/png';
      }
      Object.assign(fields, input.extra);
      return { sid, answer: post(number.sms_url, fields, input.signature) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakeTwilio = Awaited<ReturnType<typeof startFakeTwilio>>;
