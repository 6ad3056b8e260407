import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServiceDeps } from '../../services/deps.ts';
import { StartupError } from '../../startup-error.ts';
import { keptOnce } from '../carriers/kept-value.ts';
import { type SmsGateClient, SmsGateError } from './client.ts';
import { SMSGATE_EVENTS } from './mapping.ts';
import { EVENTS_PATH, SMSGATE_WEBHOOKS } from './webhooks.ts';

/** Credentials the phone or server refuses: no retry can help, the operator must fix them. */
export function refusedCredentials(error: unknown): boolean {
  return error instanceof SmsGateError && (error.status === 401 || error.status === 403);
}

/**
 * The phone textrelay sends from: TEXTRELAY_SMSGATE_DEVICE_ID when set (it must be one the
 * credentials reach), else the only one. Several and none named would let a cloud server pick a
 * random phone for each message, and a retried send could go out from two phones.
 */
export async function chooseDevice(client: SmsGateClient, configured: string | undefined): Promise<string> {
  const devices = await client.devices();
  if (configured !== undefined) {
    if (devices.some((device) => device.id === configured)) return configured;
    throw new StartupError(
      `TEXTRELAY_SMSGATE_DEVICE_ID ${configured} is not a phone of these SMSGate credentials (they reach ${devices.map((device) => device.id).join(', ') || 'none'})`,
    );
  }
  const [only, ...others] = devices;
  if (only && others.length === 0) return only.id;
  if (!only) throw new StartupError('SMSGate knows no phone for these credentials: register the app with the server first');
  throw new StartupError(
    `SMSGate has ${devices.length} phones for these credentials: set TEXTRELAY_SMSGATE_DEVICE_ID to one of ${devices.map((device) => device.id).join(', ')}`,
  );
}

/** The tag of this installation's webhooks, made once and kept, so every start of any instance registers the same ids. */
export function webhookTag(deps: ServiceDeps): Promise<string> {
  return keptOnce(deps, 'smsgate', 'webhook_tag', () => randomBytes(4).toString('hex'));
}

/** The fixed id of this installation's webhook for one event: `textrelay-<tag>-sms-received`. */
export function webhookIdOf(tag: string, event: string): string {
  return `textrelay-${tag}-${event.replace(':', '-')}`;
}

/**
 * Registers one webhook per event at our public URL under fixed ids (the phone replaces a webhook
 * posted again with its id, so restarts never pile them up), and removes our stale ones: an id of
 * ours for an event no longer read, or our URL under another id. A webhook at another textrelay's
 * SMSGate path belongs to that textrelay, on the same phone: kept, and reported in the log.
 */
export async function registerWebhooks(options: {
  client: SmsGateClient;
  log: Logger;
  publicUrl: string;
  tag: string;
  deviceId: string | undefined;
}): Promise<void> {
  const { client, log, tag } = options;
  const url = `${options.publicUrl}${SMSGATE_WEBHOOKS}${EVENTS_PATH}`;
  const wanted = new Map(SMSGATE_EVENTS.map((event) => [webhookIdOf(tag, event), event]));
  const existing = await client.webhooks();
  for (const webhook of existing) {
    if (wanted.has(webhook.id)) continue;
    const ours = webhook.id.startsWith(`textrelay-${tag}-`) || webhook.url === url;
    if (ours) {
      await client.deleteWebhook(webhook.id);
      log.info({ id: webhook.id, url: webhook.url }, 'removed a stale SMSGate webhook of this textrelay');
    } else if (webhook.url.includes(`${SMSGATE_WEBHOOKS}/`)) {
      log.warn(
        { id: webhook.id, url: webhook.url, event: webhook.event },
        `another textrelay receives this phone's ${webhook.event} events at ${webhook.url}: both get them; kept (delete it in the app or with DELETE /webhooks/${webhook.id} if that textrelay is gone)`,
      );
    }
  }
  const deviceId = client.local ? undefined : options.deviceId;
  let registered = 0;
  for (const [id, event] of wanted) {
    const current = existing.find((webhook) => webhook.id === id);
    if (current && current.url === url && current.event === event && (current.deviceId ?? undefined) === deviceId) continue;
    await client.putWebhook({ id, url, event, ...(deviceId === undefined ? {} : { deviceId }) });
    registered += 1;
  }
  if (registered > 0) log.info({ url, events: [...wanted.values()] }, 'SMSGate webhooks registered');
}
