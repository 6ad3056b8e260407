import type { Agent } from 'undici';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { acceptedTypeOf, type FetchedMedia, MAX_MEDIA_BYTES, type MediaFetcher, type MediaKind } from '../domain/media-objects.ts';
import { createGuardedAgent } from './guarded-client.ts';

const TIMEOUTS = { connectMs: 5_000, headersMs: 10_000, bodyMs: 15_000, wholeMs: 30_000 };
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MEGABYTES = MAX_MEDIA_BYTES / 1024 / 1024;

const refused = (problem: string): FetchedMedia => ({ ok: false, problem });

/** Reads the body, giving up as soon as it passes the cap (leaving the loop destroys the stream and its connection). */
async function readCapped(body: AsyncIterable<Buffer>): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += chunk.length;
    if (length > MAX_MEDIA_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

async function fetchOnce(agent: Agent, url: URL, kind: MediaKind): Promise<FetchedMedia | { redirect: string }> {
  const answer = await agent.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: { accept: 'image/*, video/*, audio/*, text/vcard' },
    // The idle timeouts alone would let a server drip bytes forever.
    signal: AbortSignal.timeout(TIMEOUTS.wholeMs),
  });
  const { statusCode, headers, body } = answer;
  const location = headers.location;
  if (REDIRECTS.has(statusCode) && typeof location === 'string') {
    await body.dump();
    return { redirect: new URL(location, url).href };
  }
  if (statusCode < 200 || statusCode > 299) {
    await body.dump();
    return refused(`could not be fetched: answered ${statusCode}`);
  }
  const accepted = acceptedTypeOf(headers['content-type'], kind);
  if ('problem' in accepted) {
    await body.dump();
    return refused(accepted.problem);
  }
  const declared = Number(headers['content-length']);
  if (declared > MAX_MEDIA_BYTES) {
    await body.dump();
    return refused(`is larger than ${MEGABYTES} MB`);
  }
  const bytes = await readCapped(body);
  if (!bytes) return refused(`is larger than ${MEGABYTES} MB`);
  return { ok: true, contentType: accepted.type, bytes };
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const timedOut = ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(String(code));
  if (timedOut || error.name === 'TimeoutError') return 'it took too long';
  const cause = error.cause instanceof Error ? error.cause : error;
  return cause.message;
}

/** Origins (scheme, host, port) the operator configured, reached under a policy of their own (a carrier's server on the LAN). */
export type TrustedOrigins = { origins: readonly string[]; policy: OutboundPolicy };

function guardedAgent(policy: OutboundPolicy): Agent {
  return createGuardedAgent(policy, {
    connect: { timeout: TIMEOUTS.connectMs },
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
    connections: 4,
  });
}

/**
 * The media fetcher of uploads, group photos and carriers' attachments: through the guarded
 * client, so a URL naming a private address is refused exactly as a callback URL would be, except
 * on a `trusted` origin; redirects are followed (each hop's origin and connection checked again)
 * up to MAX_REDIRECTS.
 */
export function createMediaFetcher(policy: OutboundPolicy, trusted?: TrustedOrigins): MediaFetcher {
  const agent = guardedAgent(policy);
  const trustedAgent = trusted && guardedAgent(trusted.policy);
  const agentFor = (url: URL) => (trustedAgent && trusted.origins.includes(url.origin) ? trustedAgent : agent);
  return async (raw, kind) => {
    let url = new URL(raw);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return refused('redirects to a URL that is not http or https');
      try {
        const result = await fetchOnce(agentFor(url), url, kind);
        if (!('redirect' in result)) return result;
        url = new URL(result.redirect);
      } catch (error) {
        return refused(`could not be fetched: ${reasonOf(error)}`);
      }
    }
    return refused(`could not be fetched: more than ${MAX_REDIRECTS} redirects`);
  };
}
