import { z } from 'zod';

/** Fields read leniently: the app adds fields between versions and leaves null ones out (carriers-smsgate.md C.2-C.6). */
const text = z.string().nullish();

export const SgErrorBody = z.object({ message: z.string().optional() }).passthrough();

export const SgDevice = z.object({ id: z.string().min(1), name: text }).passthrough();
export const SgDevices = z.array(SgDevice);

export const SgRecipient = z.object({ phoneNumber: z.string(), state: z.string(), error: text }).passthrough();

/** A message as POST /messages answers it and GET /messages/{id} shows it. */
export const SgMessage = z
  .object({ id: z.string().min(1), deviceId: text, state: z.string(), recipients: z.array(SgRecipient).nullish() })
  .passthrough();
export type SgMessage = z.output<typeof SgMessage>;

export const SgWebhook = z.object({ id: z.string(), url: z.string(), event: z.string(), deviceId: text }).passthrough();
export const SgWebhooks = z.array(SgWebhook);
export type SgWebhook = z.output<typeof SgWebhook>;

/** One SMS of the phone's inbox (GET /inbox, local server only). */
export const SgInboxItem = z
  .object({ id: z.string(), type: z.string(), sender: z.string(), recipient: text, contentPreview: z.string(), createdAt: z.string() })
  .passthrough();
export const SgInbox = z.array(SgInboxItem);
export type SgInboxItem = z.output<typeof SgInboxItem>;

/** What every webhook posts: the envelope, its event, and the event's payload. */
export const SgEnvelope = z
  .object({
    id: z.string().min(1),
    event: z.string(),
    deviceId: text,
    payload: z
      .object({
        messageId: text,
        sender: text,
        recipient: text,
        phoneNumber: text,
        message: text,
        reason: text,
        receivedAt: text,
      })
      .passthrough(),
  })
  .passthrough();
export type SgEnvelope = z.output<typeof SgEnvelope>;
