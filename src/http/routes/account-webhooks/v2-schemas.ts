import { z } from '@hono/zod-openapi';
import { isHttpUrl } from '../../../domain/media-url.ts';
import { WEBHOOK_TYPES, type WebhookType } from '../../../domain/webhook-types.ts';
import { MAX_WEBHOOK_URLS_PER_REQUEST } from '../../../services/account-webhooks.ts';

// The SDK's /api/account/webhooks: typed lists of entries, each a URL or {url, secret?, sendblue_numbers?}.

const MAX_URL_LENGTH = 2048;
const MAX_SECRET_LENGTH = 512;
const ALLOWED_TYPES = WEBHOOK_TYPES.join(', ');

const Url = z
  .string()
  .max(MAX_URL_LENGTH, { message: `webhook URLs must be at most ${MAX_URL_LENGTH} characters` })
  .refine(isHttpUrl, { message: 'webhook URLs must be absolute http or https URLs, like https://example.com/hook' })
  .openapi({ example: 'https://example.com/textrelay/hook' });

const Secret = z
  .string()
  .min(1, { message: 'secret must not be empty' })
  .max(MAX_SECRET_LENGTH, {
    message: `secret must be at most ${MAX_SECRET_LENGTH} characters`,
  });

const WebhookConfiguration = z
  .object({
    url: Url,
    secret: Secret.optional().openapi({ description: "Signs this entry's deliveries instead of globalSecret or the account secret" }),
    sendblue_numbers: z
      .array(z.string().regex(/^\+[1-9]\d{1,14}$/, { message: 'sendblue_numbers must be E.164 numbers, like +14155550100' }))
      .optional()
      .openapi({ description: 'receive only: deliver only messages that arrived on these lines' }),
  })
  .openapi('WebhookConfiguration');

const Entry = z.union([Url, WebhookConfiguration]);

const Entries = z
  .array(Entry)
  .max(MAX_WEBHOOK_URLS_PER_REQUEST, { message: `a webhook list holds at most ${MAX_WEBHOOK_URLS_PER_REQUEST} entries per request` });

const WebhookTypeField = z
  .enum(WEBHOOK_TYPES, { message: `type must be one of ${ALLOWED_TYPES}` })
  .openapi({ description: 'The list the entries belong to' });

const GlobalSecret = Secret.openapi({ description: 'Signs every entry without its own secret, instead of the account secret' });

const mapShape = Object.fromEntries(WEBHOOK_TYPES.map((type) => [type, Entries.optional()])) as Record<
  WebhookType,
  z.ZodOptional<typeof Entries>
>;

export const WebhookMap = z
  .strictObject(
    { ...mapShape, globalSecret: GlobalSecret.optional() },
    { error: () => `webhooks may only have the keys ${ALLOWED_TYPES} and globalSecret` },
  )
  .openapi('WebhookMap', { description: 'One array per type that has entries, and globalSecret when set' });

export const CreateWebhooksBody = z
  .object({
    webhooks: Entries.min(1, { message: 'webhooks must list at least one URL or webhook object' }),
    type: WebhookTypeField.default('receive'),
    globalSecret: GlobalSecret.optional(),
  })
  .openapi('CreateWebhooksRequest');

export const UpdateWebhooksBody = z.object({ webhooks: WebhookMap }).openapi('UpdateWebhooksRequest');

export const DeleteWebhooksBody = z
  .object({
    webhooks: z
      .array(Url)
      .min(1, { message: 'webhooks must list at least one URL' })
      .max(MAX_WEBHOOK_URLS_PER_REQUEST, { message: `webhooks lists at most ${MAX_WEBHOOK_URLS_PER_REQUEST} URLs` }),
    type: WebhookTypeField.default('receive'),
  })
  .openapi('DeleteWebhooksRequest');

export const WebhookMapResponse = z
  .object({ status: z.literal('OK'), message: z.string().optional(), webhooks: WebhookMap })
  .openapi('WebhookMapResponse');

export const WebhooksDeletedResponse = z.object({ status: z.literal('OK'), message: z.string() }).openapi('WebhooksDeleted');
