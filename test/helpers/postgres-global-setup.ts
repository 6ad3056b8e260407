/**
 * vitest's global setup: one PostgreSQL for the whole run, whichever projects and workers need
 * it, with its template database migrated once; the workers find it through `inject`.
 */
import type { TestProject } from 'vitest/node';
import { createTemplateDatabase, type RunningPostgres, startPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared server's URL, as its superuser, on its `postgres` database. */
    postgresServerUrl: string;
  }
}

type Shared = { server: Promise<RunningPostgres>; users: number };

/**
 * The root and each project run the global setup, each loading this module anew: the first starts
 * the server, the others find it on the process's global object.
 */
const SHARED = Symbol.for('textrelay.tests.postgres');
const registry = globalThis as typeof globalThis & { [SHARED]?: Shared };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  registry[SHARED] ??= { server: startWithTemplate(), users: 0 };
  const shared = registry[SHARED];
  shared.users += 1;
  project.provide('postgresServerUrl', (await shared.server).url);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry[SHARED] = undefined;
    await (await shared.server).stop();
  };
}

async function startWithTemplate(): Promise<RunningPostgres> {
  const running = await startPostgres();
  await createTemplateDatabase(running.url);
  return running;
}
