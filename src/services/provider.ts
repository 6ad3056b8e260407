/**
 * The provider behind the relay (upstream mode). Calls of the public service's SDK that the
 * provider must see are forwarded as they are, at the SDK's own path and verb, and the service
 * records what the provider's answer establishes. Absent in sandbox mode.
 */
export interface ProviderApi {
  /** Sends one call with the relay's credentials; resolves with the provider's status and parsed JSON body. */
  call(request: ProviderRequest): Promise<ProviderAnswer>;
  /** Closes its connections (at shutdown, after the requests that use it). */
  close(): Promise<void>;
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
