import type { AccountRow } from '../db/rows.ts';

/** A provider account's API credentials, as its `sb-api-key-id` and `sb-api-secret-key` headers carry them. */
export type ProviderCredentials = { keyId: string; secret: string };

/**
 * The provider accounts behind the relay (upstream mode): each tenant's own, or the relay's
 * (TEXTRELAY_UPSTREAM_KEY_ID) for an account that has none. Absent in sandbox mode.
 */
export interface ProviderAccounts {
  /** The key id of the relay's own provider account, which serves the accounts that have none. */
  readonly relayKeyId: string;
  /** The credentials the account's calls and messages go to the provider with. */
  credentialsOf(account: Pick<AccountRow, 'upstreamKeyId' | 'upstreamSecret'>): ProviderCredentials;
  /** The client that calls the provider as the account's provider account. */
  of(account: Pick<AccountRow, 'upstreamKeyId' | 'upstreamSecret'>): ProviderApi;
  /** Closes the connections (at shutdown, after the requests that use them). */
  close(): Promise<void>;
}

/**
 * One provider account's API. Calls of the public service's SDK that the provider must see are
 * forwarded as they are, at the SDK's own path and verb, and the service records what the
 * provider's answer establishes.
 */
export interface ProviderApi {
  /** Sends one call with this provider account's credentials; resolves with the provider's status and parsed JSON body. */
  call(request: ProviderRequest): Promise<ProviderAnswer>;
}

export type ProviderRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The SDK's path, e.g. `/api/v2/contacts/+14155550100`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
};

/** What the provider answered: the route returns it to the caller unchanged, whatever its status. */
export class ProviderAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
}
