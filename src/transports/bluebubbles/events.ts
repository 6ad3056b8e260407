import { ErrorCode } from '../../domain/error-codes.ts';
import { withStorableText } from '../../domain/storable-text.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { messageAwaitingHandover, recordHandover } from '../../services/handover.ts';
import { mediaUrlOf, storeReceivedMedia } from '../../services/media.ts';
import { receiveFromTransport } from '../../services/receive-inbound.ts';
import { recordStatus } from '../../services/record-status.ts';
import type { ChatDirectory } from './chats.ts';
import type { BlueBubblesClient } from './client.ts';
import type { BbEvent, BbInboundEvent, BbStatusEvent } from './mapping.ts';

export const SOURCE = 'bluebubbles';

export type BbEventContext = {
  deps: ServiceDeps;
  client: BlueBubblesClient;
  chats: ChatDirectory;
  /** The line bound to BlueBubbles: every inbound message arrived on it. */
  line: () => Promise<string | undefined>;
  /** Where textrelay serves media (TEXTRELAY_PUBLIC_URL). */
  publicUrl: string;
};

async function applyStatus(ctx: BbEventContext, event: BbStatusEvent): Promise<void> {
  const { deps } = ctx;
  // The echo carrying our tempGuid binds the guid to our message, even when the send's own answer never comes.
  if (event.tempGuid !== undefined && (await messageAwaitingHandover(deps, event.tempGuid)))
    await recordHandover(deps, event.tempGuid, { transportHandle: event.guid });
  await recordStatus(deps, {
    handle: event.guid,
    status: event.status,
    errorCode: event.status === 'ERROR' ? ErrorCode.sendFailed : null,
    errorMessage: event.errorMessage ?? null,
    wasDowngraded: event.wasDowngraded,
    source: SOURCE,
    sourceEventId: event.eventKey,
  });
}

type BbAttachment = BbInboundEvent['attachments'][number];

/** An attachment fetched from the Mac and kept as ours, at textrelay's own media URL. */
async function mediaOf(ctx: BbEventContext, attachment: BbAttachment, line: string): Promise<string> {
  const account = await ctx.deps.store.accounts.findByServiceNumber(line);
  if (!account) return '';
  const file = await ctx.client.download(`/attachment/${encodeURIComponent(attachment.guid)}/download`);
  const row = await storeReceivedMedia(ctx.deps, account.id, {
    sourceUrl: `bluebubbles:attachment/${attachment.guid}`,
    contentType: attachment.mimeType ?? file.contentType,
    bytes: file.bytes,
  });
  return mediaUrlOf(ctx.publicUrl, row);
}

async function applyInbound(ctx: BbEventContext, event: BbInboundEvent): Promise<void> {
  const { deps } = ctx;
  const line = await ctx.line();
  if (!line) {
    deps.log.warn({ source: SOURCE }, 'an iMessage arrived, but no line is bound to BlueBubbles: dropped');
    return;
  }
  let participants = event.participants;
  // The API's message carries one media_url, so each further attachment arrives as a message of its own, in order.
  const attachments: (BbAttachment | undefined)[] = event.attachments.length > 0 ? event.attachments : [undefined];
  for (const [index, attachment] of attachments.entries()) {
    const handle = index === 0 ? event.guid : `${event.guid}/${index}`;
    if (await deps.store.messages.findByAnyHandle(handle)) continue;
    if (event.isGroup && participants === undefined && event.chatGuid) {
      // BlueBubbles leaves the participants out of payloads past 4000 bytes.
      participants = (await ctx.chats.getChat(event.chatGuid))?.participants?.map((member) => member.address);
    }
    await receiveFromTransport(deps, {
      from: event.from,
      content: index === 0 ? event.content : '',
      mediaUrl: attachment ? await mediaOf(ctx, attachment, line) : '',
      service: event.service,
      source: SOURCE,
      transportHandle: handle,
      toNumber: line,
      transportGroupId: event.isGroup ? event.chatGuid : undefined,
      participants: event.isGroup ? [...new Set([...(participants ?? []), event.from, line])] : undefined,
    });
  }
}

/** Records one mapped event through the services every transport uses; repeats change nothing. */
export async function applyEvent(ctx: BbEventContext, reported: BbEvent): Promise<void> {
  // Its guids are looked up before the services see them: a NUL there is U+FFFD already, as the services would make it.
  const event = withStorableText(reported);
  if (event.kind === 'status') await applyStatus(ctx, event);
  else if (event.kind === 'inbound') await applyInbound(ctx, event);
}
