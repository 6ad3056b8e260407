import { ErrorCode } from '../../domain/error-codes.ts';
import type { OutboundMessage } from '../../services/handover.ts';
import { StartupError } from '../../startup-error.ts';
import { linesBoundTo } from '../carriers/bound-lines.ts';
import type { Carrier, CarrierContext } from '../carriers/carrier.ts';
import { startReadBackLoop } from '../carriers/readback-loop.ts';
import { describeFailure } from '../carriers/scrub.ts';
import { TransportRefusal, TransportUnavailable } from '../transport.ts';
import { createTwilioClient, TwilioError } from './client.ts';
import { sendFailureOf } from './mapping.ts';
import { createTwilioReadBack } from './readback.ts';
import { TWILIO_WEBHOOKS, twilioWebhooks } from './webhooks.ts';

/** What Messages.json is given for one message (B.2): our handle rides in the status callback's URL. */
export function twilioSendForm(message: OutboundMessage, publicUrl: string): URLSearchParams {
  const form = new URLSearchParams({ From: message.lineNumber, To: message.recipients[0] ?? '' });
  if (message.content !== '') form.set('Body', message.content);
  if (message.mediaUrl !== '') form.set('MediaUrl', message.mediaUrl);
  form.set('StatusCallback', `${publicUrl}${TWILIO_WEBHOOKS}/status?m=${encodeURIComponent(message.handle)}`);
  return form;
}

/** SMS and MMS through a Twilio account (carriers.md part B), with the read-back of what callbacks lost. */
export function createTwilioCarrier(context: CarrierContext): Carrier & { readBack: ReturnType<typeof createTwilioReadBack> } {
  const { config, deps, health, log, publicUrl, scrub } = context;
  const accountSid = config.TEXTRELAY_TWILIO_ACCOUNT_SID ?? '';
  const authToken = config.TEXTRELAY_TWILIO_AUTH_TOKEN ?? '';
  const client = createTwilioClient({ apiUrl: config.TEXTRELAY_TWILIO_API_URL, accountSid, authToken, policy: context.policy });
  const webhooks = twilioWebhooks(context, authToken);
  const inboundUrl = `${publicUrl}${TWILIO_WEBHOOKS}/inbound`;

  /** A request's failure in the carrier's health (a send's, in its line's), and whether it says Twilio is down rather than "no". */
  function noted(error: unknown, line?: string): TwilioError | undefined {
    if (error instanceof TwilioError && error.status < 500 && error.status !== 401) {
      health.reached();
      // A refused message is its line's error; the carrier's last error says whether it can be reached.
      if (line === undefined) health.failed(error.message);
      else health.lineFailed(error.message, line);
      return error;
    }
    health.unreachable(describeFailure(error, scrub), line);
    return error instanceof TwilioError ? error : undefined;
  }

  const twilioLines = () => linesBoundTo(deps, 'twilio');

  const notHeld = (number: string) => `${number} is not a number of Twilio account ${accountSid}`;

  const readBack = createTwilioReadBack({ deps, client, lines: twilioLines, health, log, scrub });
  let readBackLoop: ReturnType<typeof startReadBackLoop> | undefined;

  return {
    name: 'twilio',
    readBack,
    health: health.snapshot,
    webhooks: (request) => Promise.resolve(webhooks.fetch(request)),

    async send(message) {
      if (message.messageType !== 'message')
        throw new TransportRefusal(
          ErrorCode.validation,
          `Line ${message.lineNumber} is delivered by Twilio, which cannot carry group messages`,
        );
      try {
        const created = await client.createMessage(twilioSendForm(message, publicUrl));
        health.reached();
        health.sent(message.lineNumber);
        return { transportHandle: created.sid };
      } catch (error) {
        const refused = noted(error, message.lineNumber);
        if (!refused) throw new TransportUnavailable(`Twilio could not be reached: ${describeFailure(error, scrub)}`);
        const failure = sendFailureOf(refused.status, refused.code, refused.said);
        if (failure.retry) throw new TransportUnavailable(scrub(refused.message));
        throw new TransportRefusal(ErrorCode.sendFailed, failure.text, { recipientOptedOut: failure.recipientOptedOut });
      }
    },

    async start() {
      const lines = await twilioLines();
      let numbers: Awaited<ReturnType<typeof client.incomingNumbers>>;
      try {
        numbers = await client.incomingNumbers();
        health.reached();
      } catch (error) {
        noted(error);
        throw new StartupError(`could not list the numbers of Twilio account ${accountSid}: ${describeFailure(error, scrub)}`);
      }
      const owned = new Map(numbers.map((number) => [number.phone_number, number]));
      // A line the account does not hold goes OFFLINE with its reason; the other lines serve.
      for (const line of lines) {
        const number = owned.get(line);
        deps.carriers?.setLineOffline(line, number ? undefined : notHeld(line));
        if (!number) {
          log.warn({ line }, `${notHeld(line)}: the line is OFFLINE (add it in the Twilio console, or retire it)`);
          continue;
        }
        if (number.sms_url === inboundUrl) continue;
        try {
          await client.setSmsUrl(number.sid, inboundUrl);
        } catch (error) {
          noted(error);
          throw new StartupError(`could not point ${line}'s incoming messages at ${inboundUrl}: ${describeFailure(error, scrub)}`);
        }
        log.info({ line, url: inboundUrl }, "pointed the Twilio number's incoming messages at textrelay");
      }
      // Not awaited: textrelay serves while the statuses lost while it was down are read back.
      readBackLoop = startReadBackLoop({
        pass: readBack,
        everyMs: config.TEXTRELAY_CARRIER_READBACK_S * 1000,
        log,
        label: 'Twilio',
        describe: (error) => describeFailure(error, scrub),
      });
    },

    async refuseLines(candidates) {
      const missing: string[] = [];
      try {
        for (const number of candidates) {
          const found = await client.numbersLike(number);
          health.reached();
          if (!found.some((held) => held.phone_number === number)) missing.push(number);
        }
      } catch (error) {
        noted(error);
        return `could not list the numbers of Twilio account ${accountSid}: ${describeFailure(error, scrub)}`;
      }
      return missing.length === 0 ? undefined : missing.map(notHeld).join('; ');
    },

    async probe() {
      try {
        const held = new Set((await client.incomingNumbers()).map((number) => number.phone_number));
        health.reached();
        for (const line of await twilioLines()) deps.carriers?.setLineOffline(line, held.has(line) ? undefined : notHeld(line));
      } catch (error) {
        noted(error);
      }
    },

    async stop() {
      await readBackLoop?.stop();
      await client.close();
    },
  };
}

export type TwilioCarrier = ReturnType<typeof createTwilioCarrier>;
