import { z } from 'zod';

/** Fields read leniently: BlueBubbles adds fields without notice and leaves many null. */
const nullableString = z.string().nullish();
const date = z.number().nullish();

export const BbHandle = z.object({ address: z.string(), service: nullableString }).passthrough();

export const BbAttachment = z
  .object({ guid: z.string(), mimeType: nullableString, transferName: nullableString, totalBytes: z.number().nullish() })
  .passthrough();

export const BbChatRef = z
  .object({ guid: z.string(), style: z.number().nullish(), displayName: nullableString, participants: z.array(BbHandle).nullish() })
  .passthrough();

export const BbMessage = z
  .object({
    guid: z.string(),
    tempGuid: nullableString,
    text: nullableString,
    error: z.number().nullish(),
    isFromMe: z.boolean().nullish(),
    isDelivered: z.boolean().nullish(),
    dateCreated: date,
    dateDelivered: date,
    dateRead: date,
    itemType: z.number().nullish(),
    associatedMessageGuid: nullableString,
    handle: BbHandle.nullish(),
    attachments: z.array(BbAttachment).nullish(),
    chats: z.array(BbChatRef).nullish(),
  })
  .passthrough();
export type BbMessage = z.infer<typeof BbMessage>;

export const BbChat = BbChatRef.extend({ messages: z.array(BbMessage).nullish() });
export type BbChat = z.infer<typeof BbChat>;

/** A webhook POST's body: `{type, data}`. */
export const BbWebhookEvent = z.object({ type: z.string(), data: z.unknown() });
export type BbWebhookEvent = z.infer<typeof BbWebhookEvent>;

export const BbServerInfo = z
  .object({
    os_version: nullableString,
    server_version: nullableString,
    private_api: z.boolean().nullish(),
    helper_connected: z.boolean().nullish(),
    detected_imessage: nullableString,
  })
  .passthrough();
export type BbServerInfo = z.infer<typeof BbServerInfo>;

export const BbWebhook = z.object({ id: z.number(), url: z.string(), events: z.array(z.string()).or(z.string()) }).passthrough();
export const BbWebhookList = z.array(BbWebhook);
export const BbAvailability = z.object({ available: z.boolean() });

/** `icloud/account` (Private API): the addresses the Apple ID sends and receives iMessages at. */
export const BbAccountInfo = z.object({ vetted_aliases: z.array(z.object({ Alias: z.string() }).passthrough()).nullish() }).passthrough();
