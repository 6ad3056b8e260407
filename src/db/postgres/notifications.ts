import type postgres from 'postgres';

/** The channel every textrelay instance on one database listens on. */
export const TEXTRELAY_CHANNEL = 'textrelay';

export type PostgresListener = {
  message(payload: string): void;
  /** Runs at every reconnection: what was sent while the connection was down is lost, so the listener catches up. */
  connected(): void;
};

/**
 * NOTIFY and LISTEN on one channel of the database. Publishing is a query on the pool; listening
 * holds postgres.js's dedicated connection, which reconnects by itself with backoff and closes with
 * the client. A notification is delivered on commit, to every listener, the sender included.
 */
export function postgresChannel(client: postgres.Sql, channel = TEXTRELAY_CHANNEL) {
  return {
    async publish(payload: string): Promise<void> {
      await client.notify(channel, payload);
    },
    /** Resolves once LISTEN is in place; `close` is UNLISTEN. */
    async listen(listener: PostgresListener): Promise<{ close(): Promise<void> }> {
      let first = true;
      const listening = await client.listen(channel, listener.message, () => {
        // The first is the start, when there is nothing to catch up on yet.
        if (first) first = false;
        else listener.connected();
      });
      return { close: () => listening.unlisten() };
    },
  };
}
