import { createDispatcher } from './callbacks/dispatcher.ts';
import { dispatcherOptionsFromConfig } from './callbacks/dispatcher-options.ts';
import type { Config } from './config.ts';
import type { AppDeps } from './http/app-deps.ts';
import type { IngestSecrets } from './http/ingest-auth.ts';
import { createRetention, retentionOptionsFromConfig } from './retention.ts';
import type { Runtime } from './runtime.ts';
import { createCourier } from './transports/courier.ts';
import { createSandboxTransport, type SandboxAtSend } from './transports/sandbox.ts';
import type { Transport } from './transports/transport.ts';
import { createUpstreamTransport, upstreamOptionsFromConfig } from './transports/upstream.ts';

/** The configured transport; the sandbox's timer listens to the sends that plan its steps. */
function transportFor(config: Config, deps: AppDeps, ingestSecrets: IngestSecrets, sandboxAtSend: SandboxAtSend | undefined): Transport {
  if (!sandboxAtSend) return createUpstreamTransport(deps, upstreamOptionsFromConfig(config, ingestSecrets.learn));
  const sandbox = createSandboxTransport(deps, { stepMs: config.TEXTRELAY_SANDBOX_STEP_MS });
  sandboxAtSend.onPlanned(sandbox.planned);
  return sandbox;
}

/**
 * The serve process's work outside requests: the transport, the courier that hands messages to it,
 * and the webhook dispatcher, each woken by the services' notifier and each resuming from the
 * database what a previous process left unfinished; and, once an hour, removing rows past their retention.
 */
export async function startBackgroundWork(
  config: Config,
  { deps, ingestSecrets, sandboxAtSend }: Pick<Runtime, 'deps' | 'ingestSecrets' | 'sandboxAtSend'>,
) {
  const transport = transportFor(config, deps, ingestSecrets, sandboxAtSend);
  // Still there with the sandbox: messages stored QUEUED by an earlier version are resumed through it.
  const courier = createCourier(deps, transport);
  const dispatcher = createDispatcher(deps, dispatcherOptionsFromConfig(config));
  const retention = createRetention(deps, retentionOptionsFromConfig(config));
  deps.notify.subscribe({ messageQueued: courier.enqueue, outboxWritten: dispatcher.wake });
  transport.start();
  await courier.resume();
  dispatcher.start();
  retention.start();
  return {
    /** Stops taking new work and waits for work in flight; what is left stays in the database for the next start. */
    async stop(): Promise<void> {
      await courier.stop();
      await Promise.all([transport.stop(), dispatcher.stop(), retention.stop()]);
      await deps.provider?.close();
    },
  };
}
