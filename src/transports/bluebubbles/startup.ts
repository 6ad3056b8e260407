import { randomBytes } from 'node:crypto';
import type { ServiceDeps } from '../../services/deps.ts';
import { StartupError } from '../../startup-error.ts';
import { keptOnce } from '../carriers/kept-value.ts';
import { type BlueBubblesClient, BlueBubblesError } from './client.ts';
import { SOURCE } from './event-context.ts';
import { BbAccountInfo, BbServerInfo, BbWebhookList } from './schemas.ts';

/** The events textrelay reads: its own messages' echoes and updates, send errors, and people's messages. */
export const WEBHOOK_EVENTS = ['new-message', 'updated-message', 'message-send-error'];
export const INGEST_PATH = '/webhooks/carriers/bluebubbles';
const SECRET_KEY = 'webhook_secret';

/**
 * Ping and server/info (logged when `announce`): a wrong password stops the start with one line;
 * an unreachable server does not (the Mac may be asleep), sends then wait for it.
 */
export async function checkServer(
  deps: ServiceDeps,
  client: BlueBubblesClient,
  announce: boolean,
  describe: (error: unknown) => string,
): Promise<BbServerInfo | undefined> {
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
    // One line: the Mac being away is expected (asleep, off the network), its stack trace says nothing more.
    deps.log.warn({ reason: describe(error) }, 'BlueBubbles is not reachable yet; messages wait QUEUED until it is');
    return undefined;
  }
}

/** The long random part of the webhook URL, made once and kept, so every start registers the same URL. */
export function webhookSecret(deps: ServiceDeps): Promise<string> {
  return keptOnce(deps, SOURCE, SECRET_KEY, () => randomBytes(32).toString('base64url'));
}

/** A webhook's URL as a log may show it: the secret path part left out. */
function withoutSecret(url: string): string {
  const at = url.indexOf(`${INGEST_PATH}/`);
  return at < 0 ? url : `${url.slice(0, at + INGEST_PATH.length)}/[redacted]`;
}

/**
 * Registers our webhook URL and removes our own older ones (another secret at our public URL, or
 * our secret at a public URL we had before), so restarts never pile them up. A webhook at another
 * textrelay's ingest path is that textrelay's, on the same Mac: removing it would leave it
 * reading back by the hour, so it is kept with a warning unless `takeOver` says to remove it.
 */
export async function registerWebhook(
  deps: ServiceDeps,
  client: BlueBubblesClient,
  publicUrl: string,
  secret: string,
  takeOver = false,
): Promise<void> {
  const url = `${publicUrl}${INGEST_PATH}/${secret}`;
  const existing = BbWebhookList.parse(await client.call('GET', '/webhook'));
  // Each read-back pass registers again: only a first registration or a changed URL is worth an info line.
  let changed = !existing.some((webhook) => webhook.url === url);
  for (const webhook of existing) {
    if (webhook.url === url || !webhook.url.includes(`${INGEST_PATH}/`)) continue;
    const ours = webhook.url.startsWith(`${publicUrl}${INGEST_PATH}/`) || webhook.url.endsWith(`${INGEST_PATH}/${secret}`);
    if (ours || takeOver) {
      await client.call('DELETE', `/webhook/${webhook.id}`);
      changed = true;
      if (!ours)
        deps.log.warn(
          { url: withoutSecret(webhook.url) },
          'removed another textrelay’s BlueBubbles webhook (TEXTRELAY_BLUEBUBBLES_TAKE_OVER)',
        );
    } else {
      deps.log.warn(
        { url: withoutSecret(webhook.url) },
        `another textrelay receives this Mac's iMessages at ${withoutSecret(webhook.url)}: both get every message; kept (set TEXTRELAY_BLUEBUBBLES_TAKE_OVER=1 to remove it)`,
      );
    }
  }
  await client.call('POST', '/webhook', { json: { url, events: WEBHOOK_EVENTS } });
  deps.log[changed ? 'info' : 'debug']({ url: `${publicUrl}${INGEST_PATH}/[redacted]` }, 'BlueBubbles webhook registered');
}

/** An address as comparable: a phone number's digits with its +, an e-mail address in lower case. */
function comparable(address: string): string {
  return address.includes('@') ? address.trim().toLowerCase() : address.replace(/[^\d+]/g, '');
}

/**
 * Warns when the BlueBubbles line is not an address of the Mac's iMessage account: its messages
 * would go out from another address than the one the tenant gave, and replies to the line would
 * not reach the Mac. The account's addresses: server/info's `detected_imessage`, and with the
 * Private API the account's aliases (`icloud/account`).
 */
export async function checkLineAddress(
  deps: ServiceDeps,
  client: BlueBubblesClient,
  info: BbServerInfo,
  line: string | undefined,
  privateApi: boolean,
): Promise<void> {
  const detected = info.detected_imessage;
  if (!line || !detected) return;
  const addresses = [detected];
  if (privateApi) {
    try {
      const account = BbAccountInfo.parse(await client.call('GET', '/icloud/account'));
      addresses.push(...(account.vetted_aliases ?? []).map((alias) => alias.Alias));
    } catch {
      // Without the aliases the detected address alone decides.
    }
  }
  if (addresses.some((address) => comparable(address) === comparable(line))) return;
  deps.log.warn(
    { line, imessageAddresses: addresses },
    `the BlueBubbles line ${line} is not an address of the Mac's iMessage account (${addresses.join(', ')}): messages go out from that account and replies to ${line} may never reach the Mac`,
  );
}
