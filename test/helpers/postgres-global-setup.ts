/**
 * vitest's global setup: one PostgreSQL for the whole run, whichever projects and workers need
 * it, with its template database migrated once; the workers find it through `inject`.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { RunningPostgres } from './postgres.ts';

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

/** Starts test/helpers/postgres-server.ts and waits for the URL it prints; closing its stdin stops it. */
export async function startWithTemplate(): Promise<RunningPostgres> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./postgres-server.ts', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([once(lines, 'line'), exited.then(() => [undefined])])) as [string | undefined];
  if (line === undefined) throw new Error('the tests’ PostgreSQL did not start (see its output above)');
  lines.close();
  return {
    url: (JSON.parse(line) as { url: string }).url,
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}
