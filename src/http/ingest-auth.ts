import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { Webhook } from 'standardwebhooks';
import { ErrorCode } from '../domain/error-codes.ts';
import { remembering } from '../domain/remembering.ts';
import { AppError } from '../services/app-error.ts';
import type { AppEnv } from './env.ts';

/** Receivers written for the public service compare this header to the secret; sb- is its spelling there. */
const SECRET_HEADERS = ['svc-signing-secret', 'sb-signing-secret'] as const;
const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
const STANDARD_PREFIX = 'whsec_';

/** A provider account's webhook secret, which signs the callbacks it sends about its own tenants' lines and messages. */
export type ProviderWebhookSecret = { secret: string; keyId: string };

/**
 * The secrets `/webhooks/*` callers may prove themselves with: the configured one (the operator's,
 * good for every account), and those the upstream transport learns from each provider account it
 * registers at (good for that provider account's tenants only).
 */
export function createIngestSecrets(configured: string | undefined) {
  const learned = new Map<string, string>();
  return {
    list: (): string[] => (configured === undefined ? [] : [configured]),
    providers: (): ProviderWebhookSecret[] => [...learned].map(([keyId, secret]) => ({ keyId, secret })),
    learn(secret: string, keyId: string): void {
      learned.set(keyId, secret);
    },
  };
}

export type IngestSecrets = ReturnType<typeof createIngestSecrets>;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The accepted secrets' digests, hashed once: they are few, and every ingest request compares with them. */
const digestOfAccepted = remembering(digest, 64);

/** Hashing first makes both sides the same length, so not even the secret's length leaks through timing. */
export function sameSecret(presented: string, accepted: string): boolean {
  return timingSafeEqual(digest(presented), digestOfAccepted(accepted));
}

/** A `whsec_` secret is used as Standard Webhooks says (its base64 part is the key); any other secret's bytes are the key. */
function verifierFor(secret: string): Webhook {
  return secret.startsWith(STANDARD_PREFIX) ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
}

function signedWith(secret: string, rawBody: string, headers: Record<string, string>): boolean {
  try {
    // verify() also refuses timestamps more than 5 minutes off, so a captured callback cannot be replayed later.
    verifierFor(secret).verify(rawBody, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}

/** True when the caller presented an accepted secret in a header or signed the raw body with one. */
export function isAuthenticCaller(accepted: readonly string[], header: (name: string) => string | undefined, rawBody: string): boolean {
  const presented = SECRET_HEADERS.map(header).filter((value): value is string => value !== undefined && value !== '');
  if (presented.some((value) => accepted.some((secret) => sameSecret(value, secret)))) return true;

  const signature: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = header(name);
    if (value === undefined) return false;
    signature[name] = value;
  }
  return accepted.some((secret) => signedWith(secret, rawBody, signature));
}

/**
 * Lets through only callers that know an accepted secret, and says which provider accounts a
 * provider's secret proves (`ingestProviders`; unset for the operator's secret, which may report
 * for every account). With none configured every call is refused: an open ingest endpoint would
 * let anyone mark messages delivered or invent inbound texts.
 */
export function requireIngestCaller(operatorSecrets: () => string[], providerSecrets: () => readonly ProviderWebhookSecret[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const operator = operatorSecrets();
    const providers = providerSecrets();
    const header = (name: string) => c.req.header(name);
    const rawBody = operator.length + providers.length === 0 ? '' : await c.req.text();
    if (!isAuthenticCaller(operator, header, rawBody)) {
      const proven = providers.filter((provider) => isAuthenticCaller([provider.secret], header, rawBody));
      if (proven.length === 0) throw new AppError(ErrorCode.unauthorized, 'Invalid or missing signing secret');
      c.set('ingestProviders', new Set(proven.map((provider) => provider.keyId)));
    }
    await next();
  });
}
