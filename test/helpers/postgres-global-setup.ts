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

// Each project runs the global setup; the first one starts the server and the others share it.
let server: Promise<RunningPostgres> | undefined;
let projects = 0;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  server ??= (async () => {
    const running = await startPostgres();
    await createTemplateDatabase(running.url);
    return running;
  })();
  projects += 1;
  project.provide('postgresServerUrl', (await server).url);
  return async () => {
    projects -= 1;
    if (projects === 0) await (await server)?.stop();
  };
}
