import { ErrorCode } from '../../domain/error-codes.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import { StartupError } from '../../startup-error.ts';
import { linesBoundTo } from '../carriers/bound-lines.ts';
import type { Carrier, CarrierContext } from '../carriers/carrier.ts';
import { startReadBackLoop } from '../carriers/readback-loop.ts';
import { describeFailure } from '../carriers/scrub.ts';
import { TransportRefusal, TransportUnavailable } from '../transport.ts';
import { createSmsGateClient, SmsGateError, type SmsGateSend } from './client.ts';
import { applySmsGateEvent, type SmsGateEventContext } from './events.ts';
import { sendFailureOf, stateEventOf } from './mapping.ts';
import { createSmsGateReadBack } from './readback.ts';
import { chooseDevice, refusedCredentials, registerWebhooks, webhookTag } from './startup.ts';
import { EVENTS_PATH, SMSGATE_WEBHOOKS, smsGateWebhooks } from './webhooks.ts';

/** What POST /messages is given for one message (C.2): our handle is its id, so a retry can never send it twice. */
export function smsGateSendOf(message: OutboundMessage, deviceId: string): SmsGateSend {
  return {
    id: message.handle,
    deviceId,
    textMessage: { text: message.content },
    phoneNumbers: [message.recipients[0] ?? ''],
    withDeliveryReport: true,
  };
}

/** SMS through an Android phone running SMS Gateway for Android (carriers-smsgate.md), with the read-back of what webhooks lost. */
export function createSmsGateCarrier(context: CarrierContext): Carrier & { readBack(): Promise<void> } {
  const { config, deps, health, log, publicUrl, scrub } = context;
  const client = createSmsGateClient({
    url: config.TEXTRELAY_SMSGATE_URL ?? '',
    username: config.TEXTRELAY_SMSGATE_USERNAME ?? '',
    password: config.TEXTRELAY_SMSGATE_PASSWORD ?? '',
    policy: context.policy,
  });
  const lines = () => linesBoundTo(deps, 'smsgate');
  const events: SmsGateEventContext = { deps, health, log, line: async () => (await lines())[0] };
  const webhooks = smsGateWebhooks({ ...events, signingKey: config.TEXTRELAY_SMSGATE_SIGNING_KEY ?? '' });
  const readBacks = createSmsGateReadBack({ ...events, client, scrub, lines });
  let deviceId: string | undefined;
  let registered = false;
  let loop: ReturnType<typeof startReadBackLoop> | undefined;

  /** A failed request in the carrier's health: refused credentials and no answer say SMSGate cannot serve now. */
  function noted(error: unknown, line?: string): void {
    if (error instanceof SmsGateError && error.status < 500 && error.status !== 429 && !refusedCredentials(error)) {
      health.reached();
      // A refused message is its line's error; the carrier's last error says whether it can be reached.
      if (line === undefined) health.failed(error.message);
      else health.lineFailed(error.message, line);
    } else {
      const reason = describeFailure(error, scrub);
      health.unreachable(error instanceof SmsGateError ? reason : `SMSGate could not be reached: ${reason}`, line);
    }
  }

  async function device(): Promise<string> {
    deviceId ??= await chooseDevice(client, config.TEXTRELAY_SMSGATE_DEVICE_ID);
    health.reached();
    return deviceId;
  }

  /** The phone chosen and our webhooks registered; done once, then kept. */
  async function ready(): Promise<void> {
    const chosen = await device();
    if (registered) return;
    await registerWebhooks({ client, log, publicUrl, tag: await webhookTag(deps), deviceId: chosen });
    registered = true;
  }

  /**
   * A send SMSGate already has (409: the answer to an earlier attempt was lost): its state read
   * and recorded as its webhook would have been; failed on the phone, the message fails.
   */
  async function alreadyThere(message: OutboundMessage): Promise<HandoverReceipt> {
    log.info({ handle: message.handle }, 'SMSGate already has this message (an earlier attempt reached it): not sent again');
    const event = await client
      .message(message.handle)
      .then(stateEventOf)
      .catch((error: unknown) => {
        log.warn({ handle: message.handle, reason: describeFailure(error, scrub) }, 'could not read the state of a message SMSGate has');
        return undefined;
      });
    if (event?.kind === 'status' && event.status === 'ERROR')
      throw new TransportRefusal(ErrorCode.sendFailed, event.errorMessage ?? 'SMSGate: the phone could not send it');
    if (event?.kind === 'status') await applySmsGateEvent(events, event);
    return { transportHandle: message.handle };
  }

  async function pass(): Promise<void> {
    if (!registered) await ready();
    await readBacks.messages();
    await readBacks.inbox?.();
  }

  return {
    name: 'smsgate',
    health: health.snapshot,
    webhooks: (request) => Promise.resolve(webhooks.fetch(request)),
    readBack: pass,

    async send(message) {
      const refused = message.messageType !== 'message' ? 'group messages' : message.mediaUrl !== '' ? 'media' : undefined;
      if (refused)
        throw new TransportRefusal(
          ErrorCode.validation,
          `Line ${message.lineNumber} is delivered by SMSGate, which cannot carry ${refused}`,
        );
      const line = message.lineNumber;
      try {
        await client.send(smsGateSendOf(message, await device()));
        health.reached();
        health.sent(line);
        return { transportHandle: message.handle };
      } catch (error) {
        if (error instanceof StartupError || !(error instanceof SmsGateError)) {
          noted(error, line);
          throw new TransportUnavailable(`SMSGate could not be reached: ${describeFailure(error, scrub)}`);
        }
        const failure = sendFailureOf(error.status, error.said);
        if (failure.kind === 'already-there') return alreadyThere(message);
        noted(error, line);
        if (failure.kind === 'retry') throw new TransportUnavailable(scrub(error.message));
        throw new TransportRefusal(ErrorCode.sendFailed, failure.text);
      }
    },

    async start() {
      try {
        await ready();
      } catch (error) {
        noted(error);
        if (error instanceof StartupError) throw error;
        if (refusedCredentials(error))
          throw new StartupError(
            `SMSGate refused TEXTRELAY_SMSGATE_USERNAME and TEXTRELAY_SMSGATE_PASSWORD (${(error as SmsGateError).status}): copy them from the app's Home tab`,
          );
        if (error instanceof SmsGateError && error.status === 400)
          throw new StartupError(
            `SMSGate refused textrelay's webhook at ${publicUrl}${SMSGATE_WEBHOOKS}${EVENTS_PATH}: ${error.said || error.message} (a phone calls only https:// URLs, or http://127.0.0.1: set TEXTRELAY_PUBLIC_URL to one, e.g. a tunnel's)`,
          );
        log.warn({ reason: describeFailure(error, scrub) }, 'SMSGate is not reachable yet; messages wait QUEUED until it is');
      }
      // Not awaited: textrelay serves while what the phone could not tell it is read back.
      loop = startReadBackLoop({
        pass,
        everyMs: config.TEXTRELAY_CARRIER_READBACK_S * 1000,
        log,
        label: 'SMSGate',
        describe: (error) => describeFailure(error, scrub),
      });
    },

    async probe() {
      try {
        await client.devices();
        health.reached();
      } catch (error) {
        noted(error);
      }
    },

    async stop() {
      await loop?.stop();
      await client.close();
    },
  };
}
