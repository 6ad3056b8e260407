import type { Account } from '../services/accounts.ts';

export type AppEnv = {
  Variables: {
    /** The caller's x-request-id when well-formed, else ours: the request's log lines carry it. */
    requestId: string;
    account: Account;
    /** Contact routes answer errors in the spec's {status, message} shape; the rest in the message shape. */
    errorShape: 'contact' | 'message';
    /** /webhooks/*: the provider accounts whose secret the caller proved; unset for the operator's TEXTRELAY_INGEST_SECRET. */
    ingestProviders?: ReadonlySet<string>;
  };
};
