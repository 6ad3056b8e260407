import { createIngestSecrets } from '../../src/http/ingest-auth.ts';
import { createConfiguredCarriers } from '../../src/transports/carriers/registry.ts';
import type { TestApp } from './app.ts';

/** What `serve` hands its background work on a carrier transport: the app's deps and the carriers its config names. */
export function carrierRuntime(t: TestApp) {
  return {
    deps: t.deps,
    ingestSecrets: createIngestSecrets(undefined),
    sandboxAtSend: undefined,
    sharedDatabase: undefined,
    carriers: createConfiguredCarriers(t.config, t.deps),
  };
}
