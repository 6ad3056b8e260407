import type { PgPool } from './db/postgres/connection.ts';
import { postgresChannel } from './db/postgres/notifications.ts';
import type { AppDeps } from './http/app-deps.ts';
import { createNotifierBridge } from './services/notifier-bridge.ts';

/**
 * This process's notifier joined to the other instances' over LISTEN/NOTIFY: what it tells goes to
 * them, and (given `listen`) what they tell reaches it; resolves once it listens. A CLI command that
 * writes (`inbound`, `webhooks ...`) passes `listen: false`, and awaits `close` before closing the pool.
 */
export async function bridgeNotifier(deps: Pick<AppDeps, 'notify' | 'log'>, pool: PgPool, { listen = true } = {}) {
  const channel = postgresChannel(pool.$client);
  const bridge = createNotifierBridge(deps.notify, channel, deps.log);
  const listening = listen ? await channel.listen(bridge) : undefined;
  return {
    /** Sends what still waits for its turn, then stops listening. */
    async close(): Promise<void> {
      await bridge.flush();
      await listening?.close();
    },
  };
}
