import { randomBytes } from 'node:crypto';
import type { ServiceDeps } from '../../services/deps.ts';
import { StartupError } from '../../startup-error.ts';
import { type BlueBubblesClient, BlueBubblesError } from './client.ts';
import { SOURCE } from './events.ts';
import { BbServerInfo, BbWebhookList } from './schemas.ts';

/** The events textrelay reads: its own messages' echoes and updates, send errors, and people's messages. */
export const WEBHOOK_EVENTS = ['new-message', 'updated-message', 'message-send-error'];
export const INGEST_PATH = '/webhooks/carriers/bluebubbles';
const SECRET_KEY = 'webhook_secret';

/**
 * Ping and server/info (logged when `announce`): a wrong password stops the start with one line;
 * an unreachable server does not (the Mac may be asleep), sends then wait for it.
 */
export async function checkServer(deps: ServiceDeps, client: BlueBubblesClient, announce: boolean): Promise<BbServerInfo | undefined> {
  try {
    await client.call('GET', '/ping');
    const info = BbServerInfo.parse(await client.call('GET', '/server/info'));
    if (announce)
      deps.log.info(
        {
          macosVersion: info.os_version,
          serverVersion: info.server_version,
          privateApi: info.private_api ?? false,
          helperConnected: info.helper_connected ?? false,
          imessageAccount: info.detected_imessage || null,
        },
        `BlueBubbles ${info.server_version ?? ''} on macOS ${info.os_version ?? '?'}: Private API ${info.private_api ? (info.helper_connected ? 'connected' : 'enabled, helper not connected') : 'off'}`,
      );
    return info;
  } catch (error) {
    if (error instanceof BlueBubblesError && error.status === 401)
      throw new StartupError('BlueBubbles refused TEXTRELAY_BLUEBUBBLES_PASSWORD (401): check the server password in the BlueBubbles app');
    deps.log.warn({ err: error }, 'BlueBubbles is not reachable yet; messages wait QUEUED until it is');
    return undefined;
  }
}

/** The long random part of the webhook URL, made once and kept, so every start registers the same URL. */
export async function webhookSecret(deps: ServiceDeps): Promise<string> {
  const kept = await deps.store.carrierState.get(SOURCE, SECRET_KEY);
  if (kept) return kept;
  const secret = randomBytes(32).toString('base64url');
  await deps.store.carrierState.set(SOURCE, SECRET_KEY, secret, deps.clock.now());
  return (await deps.store.carrierState.get(SOURCE, SECRET_KEY)) ?? secret;
}

/**
 * Registers our webhook URL and removes the server's other webhooks pointing at our ingest path
 * (left by an older secret or public URL), so restarts never pile them up.
 */
export async function registerWebhook(deps: ServiceDeps, client: BlueBubblesClient, publicUrl: string, secret: string): Promise<void> {
  const url = `${publicUrl}${INGEST_PATH}/${secret}`;
  const existing = BbWebhookList.parse(await client.call('GET', '/webhook'));
  for (const webhook of existing) {
    if (webhook.url !== url && webhook.url.includes(`${INGEST_PATH}/`)) await client.call('DELETE', `/webhook/${webhook.id}`);
  }
  await client.call('POST', '/webhook', { json: { url, events: WEBHOOK_EVENTS } });
  deps.log.info({ url: `${publicUrl}${INGEST_PATH}/[redacted]` }, 'BlueBubbles webhook registered');
}
