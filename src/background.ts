import { createDispatcher } from './callbacks/dispatcher.ts';
import { dispatcherOptionsFromConfig } from './callbacks/dispatcher-options.ts';
import { type Config, carrierRetryDelaysMs } from './config.ts';
import type { AppDeps } from './http/app-deps.ts';
import type { IngestSecrets } from './http/ingest-auth.ts';
import { bridgeNotifier } from './notifier-bridging.ts';
import { createRetention, retentionOptionsFromConfig } from './retention.ts';
import type { Runtime } from './runtime.ts';
import { warnAboutSharedProviderAccounts } from './services/upstream-credentials.ts';
import type { Carrier } from './transports/carriers/carrier.ts';
import { startHealthReports } from './transports/carriers/health-reports.ts';
import { createCarrierTransport, startCarriers } from './transports/carriers/transport.ts';
import { createCourier, DEFAULT_COURIER_OPTIONS } from './transports/courier.ts';
import { createSandboxTransport, type SandboxAtSend } from './transports/sandbox.ts';
import type { Transport } from './transports/transport.ts';
import { createUpstreamTransport, upstreamOptionsFromConfig } from './transports/upstream.ts';

/**
 * On a database other instances share, how often the sandbox and the courier look for work those
 * left behind (the steps and QUEUED messages of an instance that died); the dispatcher polls each second anyway.
 */
const SHARED_DATABASE_POLL_MS = 5_000;

/** The configured transport; the sandbox's timer hears the commits that plan its steps. */
function transportFor(
  config: Config,
  deps: AppDeps,
  ingestSecrets: IngestSecrets,
  sandboxAtSend: SandboxAtSend | undefined,
  pollMs: number | undefined,
  carriers: readonly Carrier[],
): Transport {
  if (carriers.length > 0) return createCarrierTransport(deps, carriers);
  if (!sandboxAtSend) return createUpstreamTransport(deps, upstreamOptionsFromConfig(config, ingestSecrets.learn));
  const sandbox = createSandboxTransport(deps, { stepMs: config.TEXTRELAY_SANDBOX_STEP_MS, pollMs });
  deps.notify.subscribe({ sandboxPlanned: sandbox.planned });
  return sandbox;
}

/**
 * The serve process's work outside requests: the transport, the courier that hands messages to it,
 * and the webhook dispatcher, each woken by the services' notifier and each resuming from the
 * database what a previous process left unfinished; and, once an hour, removing rows past their retention.
 * Given `sharedDatabase` (PostgreSQL, which other instances may use too), the notifier also hears
 * the other instances, and the sandbox and the courier poll for the work of instances that died.
 */
export async function startBackgroundWork(
  config: Config,
  {
    deps,
    ingestSecrets,
    sandboxAtSend,
    sharedDatabase,
    carriers = [],
  }: Pick<Runtime, 'deps' | 'ingestSecrets' | 'sandboxAtSend' | 'sharedDatabase'> & Partial<Pick<Runtime, 'carriers'>>,
) {
  const pollMs = sharedDatabase ? SHARED_DATABASE_POLL_MS : undefined;
  // A relay database from before tenants had provider accounts of their own keeps starting, warned.
  await warnAboutSharedProviderAccounts(deps);
  const transport = transportFor(config, deps, ingestSecrets, sandboxAtSend, pollMs, carriers);
  // Before any hand-over: a carrier whose account does not hold its lines stops the start.
  await startCarriers(carriers);
  const healthReports = carriers.length > 0 ? startHealthReports(deps, carriers) : undefined;
  // Still there with the sandbox: messages stored QUEUED by an earlier version are resumed through it.
  const courier = createCourier(
    deps,
    transport,
    carriers.length > 0 ? { ...DEFAULT_COURIER_OPTIONS, retryDelaysMs: carrierRetryDelaysMs(config) } : DEFAULT_COURIER_OPTIONS,
  );
  const dispatcher = createDispatcher(deps, dispatcherOptionsFromConfig(config));
  const retention = createRetention(deps, retentionOptionsFromConfig(config));
  deps.notify.subscribe({ messageQueued: courier.enqueue, outboxWritten: dispatcher.wake });
  const bridge = sharedDatabase ? await bridgeNotifier(deps, sharedDatabase) : undefined;
  transport.start();
  await courier.resume();
  const rescans = pollMs === undefined ? undefined : setInterval(courier.rescan, pollMs).unref();
  dispatcher.start();
  retention.start();
  return {
    /** Stops taking new work and waits for work in flight; what is left stays in the database for the next start. */
    async stop(): Promise<void> {
      clearInterval(rescans);
      await courier.stop();
      await Promise.all([transport.stop(), dispatcher.stop(), retention.stop()]);
      await healthReports?.stop();
      await bridge?.close();
      await deps.providers?.close();
    },
  };
}

export type BackgroundWork = Awaited<ReturnType<typeof startBackgroundWork>>;
