import { z } from 'zod';
import type { ServiceDeps } from '../services/deps.ts';
import type { ProviderCredentials } from '../services/provider.ts';

/** POSTs to the provider as one provider account; answers the status and parsed JSON body. */
export type UpstreamPost = (credentials: ProviderCredentials, path: string, body: unknown) => Promise<{ status: number; json: unknown }>;

/** The relay's own entries in the provider's /api/account/webhooks lists, and the path each one POSTs to. */
const RELAY_WEBHOOKS = [
  { type: 'receive', path: '/webhooks/receive' },
  { type: 'outbound', path: '/webhooks/status' },
] as const;

const RegistrationAnswer = z.object({ secret: z.string().min(1) });
const ErrorAnswer = z.object({ error_message: z.string().optional(), message: z.string().optional() });

export const DEFAULT_REGISTRATION_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 300_000];

/** One provider account's registration: its webhook secret, and the relay's entries in its lists. */
type Registration = { secret: string; registered: Promise<string>; listsRegistered: Promise<void> };

export type RegistrationOptions = {
  publicUrl: string;
  post: UpstreamPost;
  /** Told each provider account's webhook secret once its receive webhook is registered: it signs that account's callbacks. */
  onWebhookSecret: (secret: string, keyId: string) => void;
  /** Pauses between attempts; the last one repeats until it succeeds. */
  retryDelaysMs: readonly number[];
};

/**
 * Registers the relay's receive and outbound webhooks at each provider account it uses, once per
 * account (again when its secret changed), retrying until each succeeds. Not fatal meanwhile:
 * sends work; only inbound messages and signed-only callbacks wait for it.
 */
export function createRegistrations(deps: ServiceDeps, options: RegistrationOptions) {
  const { publicUrl, post } = options;
  const registrations = new Map<string, Registration>();
  const retryTimers = new Set<NodeJS.Timeout>();
  let stopped = false;

  /** v1 registration: its answer carries the secret that signs the provider account's callbacks. */
  async function registerReceive(credentials: ProviderCredentials): Promise<string> {
    const { status, json } = await post(credentials, '/accounts/webhooks', {
      webhooks: [`${publicUrl}/webhooks/receive`],
      type: 'receive',
    });
    const answer = RegistrationAnswer.safeParse(json);
    if (status < 200 || status >= 300 || !answer.success) throw new Error(`upstream answered ${status} to the webhook registration`);
    return answer.data.secret;
  }

  /** Adds one entry to the provider account's list of that type; the provider keeps a URL already there once. */
  async function registerInList(credentials: ProviderCredentials, type: string, url: string): Promise<void> {
    const { status, json } = await post(credentials, '/api/account/webhooks', { webhooks: [url], type });
    if (status >= 200 && status < 300) return;
    const refusal = ErrorAnswer.safeParse(json);
    const said = refusal.success ? (refusal.data.error_message ?? refusal.data.message) : undefined;
    throw new Error(`upstream answered ${status}${said === undefined ? '' : `: ${said}`}`);
  }

  function untilDone<T>(what: { label: string; type: string; url: string; keyId: string }, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve) => {
      const tryOnce = (attempt: number): void => {
        if (stopped) return;
        work().then(
          (value) => {
            if (stopped) return;
            deps.log.info({ type: what.type, url: what.url, providerKeyId: what.keyId }, `${what.label} registered upstream`);
            resolve(value);
          },
          (error: unknown) => {
            if (stopped) return;
            const delay = options.retryDelaysMs[Math.min(attempt, options.retryDelaysMs.length - 1)] ?? DEFAULT_REGISTRATION_DELAYS_MS[0]!;
            deps.log.warn(
              { type: what.type, url: what.url, providerKeyId: what.keyId, err: error, attempt, retryInMs: delay },
              `registering the ${what.label} upstream failed, will retry`,
            );
            const timer = setTimeout(() => {
              retryTimers.delete(timer);
              tryOnce(attempt + 1);
            }, delay);
            retryTimers.add(timer);
          },
        );
      };
      tryOnce(0);
    });
  }

  function ensure(credentials: ProviderCredentials): Registration {
    const known = registrations.get(credentials.keyId);
    if (known && known.secret === credentials.secret) return known;
    const { keyId } = credentials;
    const receiveUrl = `${publicUrl}/webhooks/receive`;
    const registered = untilDone({ label: 'receive webhook', type: 'receive', url: receiveUrl, keyId }, () => registerReceive(credentials));
    void registered.then((secret) => options.onWebhookSecret(secret, keyId));
    const listsRegistered = Promise.all(
      RELAY_WEBHOOKS.map(({ type, path }) => {
        const url = `${publicUrl}${path}`;
        return untilDone({ label: `${type} webhook list entry`, type, url, keyId }, () => registerInList(credentials, type, url));
      }),
    ).then(() => undefined);
    const registration = { secret: credentials.secret, registered, listsRegistered };
    registrations.set(keyId, registration);
    return registration;
  }

  return {
    ensure,
    stop(): void {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
    },
  };
}
