import type { OutboundPolicy } from '../../domain/address-policy.ts';
import type { MediaFetcher } from '../../domain/media-objects.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import { recordStatus } from '../../services/record-status.ts';
import { StartupError } from '../../startup-error.ts';
import { TransportRefusal } from '../transport.ts';
import { createChatDirectory } from './chats.ts';
import { createBlueBubblesClient } from './client.ts';
import { applyEvent, type BbEventContext, SOURCE } from './events.ts';
import { createBlueBubblesIngest } from './ingest.ts';
import type { BbEvent } from './mapping.ts';
import { readBack } from './readback.ts';
import type { BbServerInfo } from './schemas.ts';
import { createdAtOf, sendThroughBlueBubbles } from './send.ts';
import { checkServer, registerWebhook, webhookSecret } from './startup.ts';

export type BlueBubblesOptions = {
  url: string;
  password: string;
  /** TEXTRELAY_PUBLIC_URL: where the Mac reaches our webhook and where received media is served. */
  publicUrl: string;
  /** TEXTRELAY_CARRIER_READBACK_S, in milliseconds. */
  readbackMs: number;
  /** The operator's own server: loopback and LAN allowed, link-local and metadata refused. */
  outboundPolicy: OutboundPolicy;
  fetchMedia: MediaFetcher;
  /** The one line bound to BlueBubbles, if any. */
  line: () => Promise<string | undefined>;
};

/** What `status`, `/metrics` and `lines.getState` show of the carrier. */
export type BlueBubblesHealth = { reachable: boolean; lastError: string | null; sends: number; events: number; privateApi: boolean };

/**
 * iMessage through the user's own Mac: sends through the BlueBubbles REST API, webhook ingest,
 * and the read-back that recovers what webhooks lost.
 */
export function createBlueBubblesCarrier(deps: ServiceDeps, options: BlueBubblesOptions) {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const client = createBlueBubblesClient({ url: options.url, password: options.password, outboundPolicy: options.outboundPolicy });
  let info: BbServerInfo | undefined;
  const privateApi = () => Boolean(info?.private_api && info.helper_connected);
  const chats = createChatDirectory(client, { privateApi });
  const ctx: BbEventContext = { deps, client, chats, line: options.line, publicUrl };
  const health: BlueBubblesHealth = { reachable: false, lastError: null, sends: 0, events: 0, privateApi: false };
  const startedAt = Date.now();
  /** Messages whose last attempt may have gone out: the next one reads the chat back first. */
  const uncertain = new Set<string>();
  let secret: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let readingBack: Promise<void> | undefined;
  let stopped = false;

  const failed = (error: unknown) => {
    health.lastError = client.redact(error instanceof Error ? error.message : String(error));
  };

  async function apply(event: BbEvent): Promise<void> {
    if (event.kind !== 'ignored') health.events += 1;
    await applyEvent(ctx, event);
  }

  async function send(message: OutboundMessage): Promise<HandoverReceipt> {
    const readBackFirst = uncertain.has(message.handle) || createdAtOf(message.handle) < startedAt;
    let sent: Awaited<ReturnType<typeof sendThroughBlueBubbles>>;
    try {
      sent = await sendThroughBlueBubbles({ client, chats, fetchMedia: options.fetchMedia, privateApi }, message, readBackFirst);
    } catch (error) {
      if (!(error instanceof TransportRefusal)) uncertain.add(message.handle);
      failed(error);
      throw error;
    }
    uncertain.delete(message.handle);
    health.reachable = true;
    health.sends += 1;
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
    info = (await checkServer(deps, client, announce || info === undefined)) ?? info;
    health.privateApi = privateApi();
    if (!info) {
      health.reachable = false;
      return;
    }
    health.reachable = true;
    secret ??= await webhookSecret(deps);
    await registerWebhook(deps, client, publicUrl, secret);
    await readBack(ctx);
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      readingBack = refresh()
        .catch((error: unknown) => {
          failed(error);
          deps.log.warn({ err: new Error(client.redact(String(error))) }, 'BlueBubbles read-back failed; will try again');
        })
        .finally(schedule);
    }, options.readbackMs);
  }

  return {
    name: 'bluebubbles' as const,
    send,
    health: () => ({ ...health }),
    privateApi,
    client,
    chats,
    ingest: createBlueBubblesIngest({ secret: () => secret, apply }),
    /** Checks the server (a wrong password throws StartupError), registers the webhook, reads back, then reads back periodically. */
    async start(): Promise<void> {
      secret = await webhookSecret(deps);
      try {
        await refresh(true);
      } catch (error) {
        if (error instanceof StartupError) throw error;
        failed(error);
        deps.log.warn({ err: new Error(client.redact(String(error))) }, 'BlueBubbles start-up pass failed; will try again');
      }
      schedule();
    },
    /** Runs one read-back pass now (tests, and `start`). */
    readBack: () => readBack(ctx),
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await readingBack;
      await client.close();
    },
  };
}

export type BlueBubblesCarrier = ReturnType<typeof createBlueBubblesCarrier>;
