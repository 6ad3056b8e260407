import { Hono } from 'hono';
import { outboundPolicyOf } from '../../config.ts';
import { createMediaFetcher } from '../../outbound/media-fetch.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import { recordStatus } from '../../services/record-status.ts';
import { StartupError } from '../../startup-error.ts';
import { linesBoundTo } from '../carriers/bound-lines.ts';
import type { Carrier, CarrierContext } from '../carriers/carrier.ts';
import { startReadBackLoop } from '../carriers/readback-loop.ts';
import { describeFailure } from '../carriers/scrub.ts';
import { TransportRefusal, TransportUnavailable } from '../transport.ts';
import { createChatDirectory } from './chats.ts';
import { createBlueBubblesClient } from './client.ts';
import { type BbEventContext, SOURCE } from './event-context.ts';
import { applyEvent } from './events.ts';
import { createBlueBubblesIngest } from './ingest.ts';
import type { BbEvent } from './mapping.ts';
import { retryMissingAttachments } from './missing-attachments.ts';
import { createPrivateApiActions, privateApiReady } from './private-api.ts';
import { readBack, recordItemProblem } from './readback.ts';
import type { BbServerInfo } from './schemas.ts';
import { createdAtOf, sendThroughBlueBubbles } from './send.ts';
import { checkLineAddress, checkServer, INGEST_PATH, registerWebhook, webhookSecret } from './startup.ts';

/** The line bound to BlueBubbles (a line bound to no carrier is never served through the Mac). */
async function blueBubblesLine(context: CarrierContext): Promise<string | undefined> {
  return (await linesBoundTo(context.deps, SOURCE))[0];
}

/**
 * iMessage through the user's own Mac: sends through the BlueBubbles REST API, webhook ingest,
 * and the read-back that recovers what webhooks lost.
 */
export function createBlueBubblesCarrier(context: CarrierContext): Carrier & { readBack(): Promise<void> } {
  const { deps, config, publicUrl, health } = context;
  const client = createBlueBubblesClient({
    url: config.TEXTRELAY_BLUEBUBBLES_URL ?? '',
    password: config.TEXTRELAY_BLUEBUBBLES_PASSWORD ?? '',
    outboundPolicy: context.policy,
  });
  // media_url is the tenant's: fetched under the tenant policy, not the carrier's.
  const fetchMedia = createMediaFetcher(outboundPolicyOf(config));
  let info: BbServerInfo | undefined;
  const privateApi = () => privateApiReady(info);
  const chats = createChatDirectory(client, { privateApi });
  const describe = (error: unknown) => describeFailure(error, (text) => context.scrub(client.redact(text)));
  const ctx: BbEventContext = { deps, client, chats, line: () => blueBubblesLine(context), publicUrl, describe };
  const startedAt = Date.now();
  /** Messages whose last attempt may have gone out: the next one reads the chat back first. */
  const uncertain = new Set<string>();
  let secret: string | undefined;
  let loop: ReturnType<typeof startReadBackLoop> | undefined;

  /** A webhook's event: one that cannot be recorded is written down (the read-back takes it again) and answered 500. */
  async function apply(event: BbEvent): Promise<void> {
    if (event.kind !== 'ignored') health.event(await ctx.line());
    try {
      await applyEvent(ctx, event);
    } catch (error) {
      await recordItemProblem(ctx, event, error).catch(() => undefined);
      throw error;
    }
  }

  /** A read-back pass, then another try at the attachments still missing. */
  async function readBackAll(): Promise<void> {
    await readBack(ctx);
    await retryMissingAttachments(ctx);
  }

  async function send(message: OutboundMessage): Promise<HandoverReceipt> {
    const readBackFirst = uncertain.has(message.handle) || createdAtOf(message.handle) < startedAt;
    let sent: Awaited<ReturnType<typeof sendThroughBlueBubbles>>;
    try {
      sent = await sendThroughBlueBubbles({ client, chats, fetchMedia, privateApi }, message, readBackFirst);
    } catch (error) {
      if (error instanceof TransportRefusal) {
        health.reached();
        // A refused message is its line's error; the carrier's last error says whether it can be reached.
        health.lineFailed(error.message, message.lineNumber);
        throw error;
      }
      uncertain.add(message.handle);
      health.unreachable(describe(error), message.lineNumber);
      throw new TransportUnavailable(`BlueBubbles did not take the message: ${describe(error)}`);
    }
    uncertain.delete(message.handle);
    health.reached();
    health.sent(message.lineNumber);
    // Kept under the guid until the hand-over stores it (an orphan event): the answer means SENT.
    await recordStatus(deps, {
      handle: sent.guid,
      status: 'SENT',
      wasDowngraded: sent.wasDowngraded,
      source: SOURCE,
      sourceEventId: `${sent.guid}:SENT`,
    });
    return { transportHandle: sent.guid, transportGroupId: sent.groupChatGuid };
  }

  /** One pass: the server's state (Private API), our webhook, then what webhooks missed. */
  async function refresh(announce = false): Promise<void> {
    const now = await checkServer(deps, client, announce || info === undefined, describe);
    if (!now) {
      health.unreachable('BlueBubbles did not answer ping and server/info');
      return;
    }
    info = now;
    health.reached();
    secret ??= await webhookSecret(deps);
    if (announce) await checkLineAddress(deps, client, now, await blueBubblesLine(context), privateApiReady(now));
    await registerWebhook(deps, client, publicUrl, secret, config.TEXTRELAY_BLUEBUBBLES_TAKE_OVER);
    await readBackAll();
  }

  /** A pass after the start's own: one that fails is the carrier's last error too. */
  async function laterPass(): Promise<void> {
    await refresh().catch((error: unknown) => {
      health.failed(describe(error));
      throw error;
    });
  }

  const ingest = createBlueBubblesIngest({ secret: () => secret, apply });
  const webhooks = new Hono().basePath(INGEST_PATH).route('/', ingest);

  return {
    name: SOURCE,
    send,
    health: health.snapshot,
    webhooks: async (request) => webhooks.fetch(request),
    actions: createPrivateApiActions({
      client,
      chats,
      info: () => info,
      remember: (latest) => {
        info = latest;
      },
      describe,
    }),
    async lookup(number) {
      // Without the Private API only the Mac's chat history could tell, which would say whom the Mac talks with.
      if (!privateApi()) return undefined;
      try {
        const available = await chats.availability(number);
        return available === undefined ? undefined : available ? 'iMessage' : 'SMS';
      } catch (error) {
        context.log.warn({ reason: describe(error) }, 'BlueBubbles could not tell which service reaches a number');
        return undefined;
      }
    },
    async probe() {
      try {
        await client.call('GET', '/ping');
        health.reached();
      } catch (error) {
        health.unreachable(describe(error));
      }
    },
    /** Checks the server (a wrong password throws StartupError), registers the webhook, reads back, then reads back periodically. */
    async start(): Promise<void> {
      secret = await webhookSecret(deps);
      try {
        await refresh(true);
      } catch (error) {
        if (error instanceof StartupError) throw error;
        health.unreachable(describe(error));
        context.log.warn({ reason: describe(error) }, 'BlueBubbles start-up pass failed; will try again');
      }
      loop = startReadBackLoop({
        pass: laterPass,
        everyMs: config.TEXTRELAY_CARRIER_READBACK_S * 1000,
        log: context.log,
        label: 'BlueBubbles',
        describe,
        firstPassNow: false,
      });
    },
    /** Runs one read-back pass now (tests, and `start`). */
    readBack: readBackAll,
    async stop(): Promise<void> {
      await loop?.stop();
      await client.close();
    },
  };
}

export type BlueBubblesCarrier = ReturnType<typeof createBlueBubblesCarrier>;
