import { ErrorCode } from '../../domain/error-codes.ts';
import { withStorableText } from '../../domain/storable-text.ts';
import { messageAwaitingHandover, recordHandover } from '../../services/handover.ts';
import { receiveFromTransport } from '../../services/receive-inbound.ts';
import { recordStatus } from '../../services/record-status.ts';
import { type BbEventContext, SOURCE } from './event-context.ts';
import type { BbEvent, BbInboundEvent, BbStatusEvent } from './mapping.ts';
import { fetchAttachment, isMissing, markMissing } from './missing-attachments.ts';

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

/** The account that owns the line, when one does: a problem with the message is shown to it. */
async function ownerOf(ctx: BbEventContext, line: string): Promise<string | null> {
  return (await ctx.deps.store.accounts.findByServiceNumber(line))?.id ?? null;
}

async function applyInbound(ctx: BbEventContext, event: BbInboundEvent): Promise<void> {
  const { deps } = ctx;
  const line = await ctx.line();
  if (!line) {
    deps.log.warn({ source: SOURCE }, 'an iMessage arrived, but no line is bound to BlueBubbles: dropped');
    return;
  }
  const accountId = await ownerOf(ctx, line);
  let participants = event.participants;
  /** Who and where, read once a part is to be stored: a read-back sees stored messages again and asks the Mac nothing. */
  const inboundOf = async () => {
    if (event.isGroup && participants === undefined && event.chatGuid) {
      // BlueBubbles leaves the participants out of payloads past 4000 bytes.
      participants = (await ctx.chats.getChat(event.chatGuid))?.participants?.map((member) => member.address) ?? [];
    }
    return {
      from: event.from,
      service: event.service,
      toNumber: line,
      transportGroupId: event.isGroup ? event.chatGuid : undefined,
      participants: event.isGroup ? [...new Set([...(participants ?? []), event.from, line])] : undefined,
    };
  };
  // The API's message carries one media_url, so each further attachment arrives as a message of its own, in order.
  const attachments = event.attachments.length > 0 ? event.attachments : [undefined];
  for (const [index, attachment] of attachments.entries()) {
    const handle = index === 0 ? event.guid : `${event.guid}/${index}`;
    const content = index === 0 ? event.content : '';
    if (await deps.store.messages.findByAnyHandle(handle)) continue;
    const inbound = await inboundOf();
    let mediaUrl = '';
    let missing = false;
    if (attachment && accountId !== null) {
      missing = await isMissing(ctx, attachment.guid);
      if (!missing) {
        try {
          mediaUrl = await fetchAttachment(ctx, attachment, accountId);
        } catch (error) {
          // The text is kept; the file arrives later as a message of its own, or is given up and said so.
          missing = true;
          const lateHandle = content === '' ? handle : `${event.guid}/0`;
          await markMissing(ctx, attachment, { guid: event.guid, handle: lateHandle, inbound, accountId }, error);
        }
      }
    }
    if (missing && content === '') continue;
    await receiveFromTransport(deps, { ...inbound, content, mediaUrl, source: SOURCE, transportHandle: handle });
  }
}

/** Records one mapped event through the services every transport uses; repeats change nothing. */
export async function applyEvent(ctx: BbEventContext, reported: BbEvent): Promise<void> {
  // Its guids are looked up before the services see them: a NUL there is U+FFFD already, as the services would make it.
  const event = withStorableText(reported);
  if (event.kind === 'status') await applyStatus(ctx, event);
  else if (event.kind === 'inbound') await applyInbound(ctx, event);
}
