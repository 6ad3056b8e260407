import { type Config, outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { createGuardedPool } from '../outbound/guarded-client.ts';
import { type ProviderAccounts, ProviderAnswer, type ProviderCredentials, type ProviderRequest } from '../services/provider.ts';
import { VERSION } from '../version.ts';

export type ProviderAccountsOptions = {
  /** TEXTRELAY_UPSTREAM_URL */
  url: string;
  /** TEXTRELAY_UPSTREAM_KEY_ID and _SECRET: the provider account of the tenants that have none of their own. */
  relay: ProviderCredentials;
  outboundPolicy: OutboundPolicy;
};

type ProviderAccountOf = Parameters<ProviderAccounts['credentialsOf']>[0];

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

/**
 * The relay's clients of the provider's API, one per provider account, through one guarded pool
 * to the provider's origin: each call carries its provider account's credentials.
 */
export function createProviderAccounts(options: ProviderAccountsOptions): ProviderAccounts {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = createGuardedPool(base.origin, options.outboundPolicy, {
    connections: 8,
    connect: { timeout: TIMEOUTS.connectMs },
    headersTimeout: TIMEOUTS.headersMs,
    bodyTimeout: TIMEOUTS.bodyMs,
    maxResponseSize: MAX_ANSWER_BYTES,
  });

  async function call(credentials: ProviderCredentials, request: ProviderRequest): Promise<ProviderAnswer> {
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
        'sb-api-key-id': credentials.keyId,
        'sb-api-secret-key': credentials.secret,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    return new ProviderAnswer(answer.statusCode, parseJson(await answer.body.text()));
  }

  const credentialsOf = (account: ProviderAccountOf): ProviderCredentials =>
    account.upstreamKeyId !== null && account.upstreamSecret !== null
      ? { keyId: account.upstreamKeyId, secret: account.upstreamSecret }
      : options.relay;
  return {
    relayKeyId: options.relay.keyId,
    credentialsOf,
    of(account) {
      const credentials = credentialsOf(account);
      return { call: (request) => call(credentials, request) };
    },
    close: () => pool.close(),
  };
}

/** The relay's provider accounts when the configuration runs the upstream transport, else undefined. */
export function providerAccountsFromConfig(config: Config): ProviderAccounts | undefined {
  const { TEXTRELAY_UPSTREAM_URL: url, TEXTRELAY_UPSTREAM_KEY_ID: keyId, TEXTRELAY_UPSTREAM_SECRET: secret } = config;
  if (config.TEXTRELAY_TRANSPORT !== 'upstream' || !url || !keyId || !secret) return undefined;
  return createProviderAccounts({ url, relay: { keyId, secret }, outboundPolicy: outboundPolicyOf(config) });
}
