import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { buildApp } from './app.ts';
import { startBackgroundWork } from './background.ts';
import type { Config } from './config.ts';
import { createHttpServer, DEFAULT_HTTP_LIMITS, listen } from './http-server.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { createDevAccountIfEmpty } from './services/accounts.ts';

/** How long shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

function printDevAccount(account: NonNullable<Awaited<ReturnType<typeof createDevAccountIfEmpty>>>): void {
  // Printed once, on the empty database's first start: the secret is stored hashed and never shown again.
  process.stdout.write(
    [
      'Created a development account (shown once, keep the secret):',
      `  email:              ${account.email}`,
      `  plan:               ${account.plan}`,
      `  numbers:            ${account.numbers.join(', ')}`,
      `  svc-api-key-id:     ${account.api_key_id}`,
      `  svc-api-secret-key: ${account.api_secret_key}`,
      '',
    ].join('\n'),
  );
}

export async function runServer(config: Config): Promise<void> {
  const log = createLogger(config.LOG_LEVEL);
  const server = createHttpServer({
    ...DEFAULT_HTTP_LIMITS,
    keepAliveTimeoutMs: config.TEXTRELAY_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: config.TEXTRELAY_MAX_CONNECTIONS,
  });
  // The address first: a taken port must stop the start before the database file is created or a secret printed.
  await listen(server, config.PORT, config.HOST);
  let runtime: Runtime;
  try {
    runtime = await openRuntime(config, log, { checkIntegrity: true });
  } catch (error) {
    server.close();
    throw error;
  }
  const { deps } = runtime;
  // The sandbox only: a carrier's lines are its real numbers, and a relay's first account would take its provider account.
  const devAccount = config.TEXTRELAY_TRANSPORT === 'sandbox' ? await createDevAccountIfEmpty(deps) : undefined;
  if (devAccount) printDevAccount(devAccount);

  deps.metrics.collectProcessMetrics();
  const app = buildApp(deps);
  // Connections accepted meanwhile wait in the socket's queue until the app answers them.
  server.on('request', getRequestListener(app.fetch));
  const background = await startBackgroundWork(config, runtime);
  const { port } = server.address() as AddressInfo;
  // Tests and scripts read this line to find the port when PORT=0.
  process.stdout.write(`textrelay listening on http://${config.HOST}:${port}\n`);
  log.info({ port, host: config.HOST, db: runtime.databaseName, transport: config.TEXTRELAY_TRANSPORT }, 'listening');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Stop accepting; requests already inside finish (their writes are synchronous transactions).
    const force = setTimeout(() => {
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // Open inbox event streams would hold their connections until the grace period ran out.
    deps.notify.endWatchers();
    server.close(() => {
      void background
        .stop()
        .catch((error: unknown) => log.error({ err: error }, 'background work did not stop cleanly'))
        .then(() => runtime.close())
        .catch((error: unknown) => log.error({ err: error }, 'the database did not close cleanly'))
        .finally(() => {
          log.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
