import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { ErrorCode } from '../../domain/error-codes.ts';
import { extensionOf, type MediaFetcher } from '../../domain/media-objects.ts';
import type { OutboundMessage } from '../../services/handover.ts';
import { TransportRefusal } from '../transport.ts';
import type { ChatDirectory } from './chats.ts';
import { type BlueBubblesClient, BlueBubblesError, BlueBubblesUnreachable } from './client.ts';
import { carrierErrorMessage, isGroupChat } from './mapping.ts';
import { BbChat, BbMessage } from './schemas.ts';

/** Apple's effect ids for the API's send styles (carriers.md A.3: the list is unconfirmed, the names are Messages' own). */
const EFFECTS: Record<string, string> = {
  slam: 'com.apple.MobileSMS.expressivesend.impact',
  loud: 'com.apple.MobileSMS.expressivesend.loud',
  gentle: 'com.apple.MobileSMS.expressivesend.gentle',
  invisible: 'com.apple.MobileSMS.expressivesend.invisibleink',
  echo: 'com.apple.messages.effect.CKEchoEffect',
  spotlight: 'com.apple.messages.effect.CKSpotlightEffect',
  balloons: 'com.apple.messages.effect.CKHappyBirthdayEffect',
  confetti: 'com.apple.messages.effect.CKConfettiEffect',
  love: 'com.apple.messages.effect.CKHeartEffect',
  lasers: 'com.apple.messages.effect.CKLasersEffect',
  fireworks: 'com.apple.messages.effect.CKFireworksEffect',
  shooting_star: 'com.apple.messages.effect.CKShootingStarEffect',
  celebration: 'com.apple.messages.effect.CKSparklesEffect',
};

/** A send that may have gone out (no answer, or "500 with data null"): read the chat back before sending again. */
export class BlueBubblesUncertain extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlueBubblesUncertain';
  }
}

/** What a send did: the Mac's guid for the message, the chat it went in, and whether as SMS. */
export type BbSent = { guid: string; chatGuid: string; wasDowngraded: boolean; groupChatGuid?: string | undefined };

export type BbSendContext = {
  client: BlueBubblesClient;
  chats: ChatDirectory;
  fetchMedia: MediaFetcher;
  privateApi: () => boolean;
};

/** The creation time a UUIDv7 handle carries: a read-back looks for the message from then on. */
export function createdAtOf(handle: string): number {
  const hex = handle.replaceAll('-', '').slice(0, 12);
  const time = Number.parseInt(hex, 16);
  return Number.isFinite(time) ? time : 0;
}

/** Our refusal, a retry, or "read back first", from what BlueBubbles answered. */
export function classifySendError(error: unknown): Error {
  if (error instanceof BlueBubblesUnreachable) return new BlueBubblesUncertain(error.message);
  if (!(error instanceof BlueBubblesError)) return error instanceof Error ? error : new Error(String(error));
  const sent = BbMessage.safeParse(error.data);
  if (sent.success && (sent.data.error ?? 0) !== 0)
    return new TransportRefusal(ErrorCode.sendFailed, carrierErrorMessage(sent.data.error!));
  const said = error.detail ?? error.summary;
  if (error.status === 400 && error.summary.includes('already queued')) return new BlueBubblesUncertain(error.message);
  if (/not enabled/i.test(said))
    return new TransportRefusal(ErrorCode.sendFailed, `BlueBubbles: ${said} (the message needs the Private API)`);
  if (/helper is not connected/i.test(said)) return error;
  if (error.status >= 400 && error.status < 500)
    return new TransportRefusal(ErrorCode.sendFailed, `BlueBubbles refused the message: ${said}`);
  if (error.summary === 'Message Send Error' && error.data === null) return new BlueBubblesUncertain(error.message);
  return error;
}

function alphanumeric(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
}

/** Our message among the chat's messages since it was made: by tempGuid, else by its text (BlueBubbles' own matching). */
export async function findSent(client: BlueBubblesClient, message: OutboundMessage, chatGuid: string): Promise<BbMessage | undefined> {
  const after = createdAtOf(message.handle) - 10_000;
  // Attachments come back only when `with` asks for them: without, a media-only send is never found.
  const found = await client.call('POST', '/message/query', {
    json: { chatGuid, after, limit: 100, sort: 'ASC', with: ['chat', 'attachment'] },
  });
  const wanted = alphanumeric(message.content);
  for (const item of Array.isArray(found) ? found : []) {
    const parsed = BbMessage.safeParse(item);
    if (!parsed.success || !parsed.data.isFromMe) continue;
    const candidate = parsed.data;
    if (candidate.tempGuid === message.handle) return candidate;
    const sameText = wanted !== '' && alphanumeric(candidate.text ?? '') === wanted;
    const sameMedia = wanted === '' && message.mediaUrl !== '' && (candidate.attachments?.length ?? 0) > 0;
    if (sameText || sameMedia) return candidate;
  }
  return undefined;
}

/** A row the Mac saved with an error code: the send failed, whatever the HTTP status said. */
function refuseErrorRow(sent: BbMessage): BbMessage {
  if ((sent.error ?? 0) !== 0) throw new TransportRefusal(ErrorCode.sendFailed, carrierErrorMessage(sent.error!));
  return sent;
}

/** `message/text` found its row with an error: it answers 500 without the row, so the code is read back. */
function savedWithError(error: unknown): boolean {
  return error instanceof BlueBubblesError && error.status === 500 && /sent with an error/i.test(error.detail ?? error.summary);
}

function privateFields(message: OutboundMessage): Record<string, string> {
  const fields: Record<string, string> = {};
  const effect = EFFECTS[message.sendStyle];
  if (effect) fields.effectId = effect;
  if (message.replyTo) fields.selectedMessageGuid = message.replyTo.handle;
  if (Object.keys(fields).length > 0) fields.method = 'private-api';
  return fields;
}

async function attach(ctx: BbSendContext, message: OutboundMessage, chatGuid: string): Promise<BbMessage> {
  const fetched = await ctx.fetchMedia(message.mediaUrl, 'media');
  if (!fetched.ok) throw new TransportRefusal(ErrorCode.sendFailed, `media_url ${fetched.problem}`);
  const form = new FormData();
  const name = `${message.handle}.${extensionOf(fetched.contentType)}`;
  form.set('attachment', new Blob([fetched.bytes], { type: fetched.contentType }), name);
  form.set('name', name);
  form.set('chatGuid', chatGuid);
  form.set('tempGuid', message.content === '' ? message.handle : `${message.handle}-media`);
  for (const [field, value] of Object.entries(privateFields(message))) form.set(field, value);
  // Answered 200 even when the row has an error.
  return refuseErrorRow(BbMessage.parse(await ctx.client.call('POST', '/message/attachment', { form, slow: true })));
}

async function sendText(ctx: BbSendContext, message: OutboundMessage, chatGuid: string): Promise<BbMessage> {
  const json = { chatGuid, message: message.content, tempGuid: message.handle, ...privateFields(message) };
  try {
    return BbMessage.parse(await ctx.client.call('POST', '/message/text', { json, slow: true }));
  } catch (error) {
    if (!savedWithError(error)) throw error;
    const row = await findSent(ctx.client, message, chatGuid);
    if (!row) throw new BlueBubblesUncertain('BlueBubbles saved the message with an error but it could not be read back yet');
    return refuseErrorRow(row);
  }
}

async function newChat(ctx: BbSendContext, message: OutboundMessage, service: string): Promise<{ chat: BbChat; sent: BbMessage }> {
  const group = message.recipients.length > 1;
  const json = {
    addresses: message.recipients,
    message: message.content,
    service,
    tempGuid: message.handle,
    method: group || Object.keys(privateFields(message)).length > 0 ? 'private-api' : 'apple-script',
    ...privateFields(message),
  };
  const chat = BbChat.parse(await ctx.client.call('POST', '/chat/new', { json, slow: true }));
  const sent = chat.messages?.[0];
  if (!sent) throw new BlueBubblesUncertain('BlueBubbles created the chat but did not say which message it sent');
  // Answered 200 even when the row has an error.
  return { chat, sent: refuseErrorRow(sent) };
}

/** The chat a message goes in, and whether it exists yet; `route` is the downgrade decision. */
async function target(
  ctx: BbSendContext,
  message: OutboundMessage,
): Promise<{ chatGuid: string | undefined; service: 'iMessage' | 'SMS' }> {
  if (message.messageType === 'group') {
    if (message.transportGroupId !== null) return { chatGuid: message.transportGroupId, service: 'iMessage' };
    if (!ctx.privateApi())
      throw new TransportRefusal(
        ErrorCode.sendFailed,
        'BlueBubbles creates group chats only through the Private API, which is not connected',
      );
    return { chatGuid: undefined, service: 'iMessage' };
  }
  return ctx.chats.route(message.recipients[0]!);
}

/**
 * Sends one message: into its existing chat with `message/text`, else `chat/new`; media as an
 * attachment after the text. `readBackFirst` looks for it in the chat before sending (after a crash
 * or an uncertain answer), so it never goes out twice.
 */
export async function sendThroughBlueBubbles(ctx: BbSendContext, message: OutboundMessage, readBackFirst: boolean): Promise<BbSent> {
  try {
    const { chatGuid, service } = await target(ctx, message);
    const downgraded = service === 'SMS';
    if (readBackFirst && chatGuid !== undefined) {
      const found = await findSent(ctx.client, message, chatGuid);
      if (found) return { guid: refuseErrorRow(found).guid, chatGuid, wasDowngraded: downgraded };
    }
    if (chatGuid === undefined) {
      if (message.content === '' && message.messageType === 'message') {
        const sent = await attach(ctx, message, `${service};-;${message.recipients[0]}`);
        return { guid: sent.guid, chatGuid: sent.chats?.[0]?.guid ?? `${service};-;${message.recipients[0]}`, wasDowngraded: downgraded };
      }
      const { chat, sent } = await newChat(ctx, message, service);
      if (message.mediaUrl !== '') await attach(ctx, message, chat.guid);
      const group = isGroupChat(chat.guid, chat.style) ? chat.guid : undefined;
      return { guid: sent.guid, chatGuid: chat.guid, wasDowngraded: downgraded, groupChatGuid: group };
    }
    const sent = message.content === '' ? await attach(ctx, message, chatGuid) : await sendText(ctx, message, chatGuid);
    if (message.content !== '' && message.mediaUrl !== '') await attach(ctx, message, chatGuid);
    return { guid: sent.guid, chatGuid, wasDowngraded: downgraded };
  } catch (error) {
    throw classifySendError(error);
  }
}
