import { type Config, outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { createGuardedPool } from '../outbound/guarded-client.ts';
import { ProviderAnswer, type ProviderApi, type ProviderRequest } from '../services/provider.ts';
import { VERSION } from '../version.ts';

export type ProviderApiOptions = {
  /** TEXTRELAY_UPSTREAM_URL */
  url: string;
  keyId: string;
  secret: string;
  outboundPolicy: OutboundPolicy;
};

/** A caller waits on these: a provider silent for 15 s is down, and the caller is told so. */
const TIMEOUTS = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 };
/** Media uploads come back as JSON too; nothing the provider answers an API call with is larger. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text === '' ? null : { status: 'ERROR', message: text.slice(0, 500) };
  }
}

/** The relay's client of the provider's API, through the guarded outbound client. */
export function createProviderApi(options: ProviderApiOptions): ProviderApi {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = createGuardedPool(base.origin, options.outboundPolicy, {
    connections: 8,
    connect: { timeout: TIMEOUTS.connectMs },
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
    maxResponseSize: MAX_ANSWER_BYTES,
  });

  return {
    async call(request: ProviderRequest): Promise<ProviderAnswer> {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(name, value);
      const search = query.size === 0 ? '' : `?${query}`;
      const answer = await pool.request({
        method: request.method,
        path: `${prefix}${request.path}${search}`,
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'user-agent': `textrelay/${VERSION}`,
          'sb-api-key-id': options.keyId,
          'sb-api-secret-key': options.secret,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
      return new ProviderAnswer(answer.statusCode, parseJson(await answer.body.text()));
    },
    close: () => pool.close(),
  };
}

/** The relay's provider client when the configuration runs the upstream transport, else undefined. */
export function providerApiFromConfig(config: Config): ProviderApi | undefined {
  const { TEXTRELAY_UPSTREAM_URL: url, TEXTRELAY_UPSTREAM_KEY_ID: keyId, TEXTRELAY_UPSTREAM_SECRET: secret } = config;
  if (config.TEXTRELAY_TRANSPORT !== 'upstream' || !url || !keyId || !secret) return undefined;
  return createProviderApi({ url, keyId, secret, outboundPolicy: outboundPolicyOf(config) });
}
