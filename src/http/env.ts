import type { AccountRow } from '../db/rows.ts';

export type AppEnv = {
  Variables: {
    account: AccountRow;
    /** Contact routes answer errors in the spec's {status, message} shape; the rest in the message shape. */
    errorShape: 'contact' | 'message';
  };
};
