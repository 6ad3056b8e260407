/** Provider accounts for tests of relay mode: one fake API answering for every account. */
import type { ProviderAccounts, ProviderApi } from '../../src/services/provider.ts';

/** Every account goes to `api`, as when all share the relay's provider account `relayKeyId`. */
export function oneProviderAccount(api: ProviderApi, relayKeyId = 'relay-key'): ProviderAccounts {
  return {
    relayKeyId,
    credentialsOf: (account) => ({ keyId: account.upstreamKeyId ?? relayKeyId, secret: account.upstreamSecret ?? 'relay-secret' }),
    of: () => api,
    close: async () => {},
  };
}
