import { join } from 'node:path';
import { expect } from 'vitest';
import { onCleanup } from './cleanups.ts';
import { freshPostgresDatabase } from './postgres-database.ts';
import { type CliResult, describeRun, runCli } from './process.ts';

/** Where a CLI test's processes keep their data: a file in `dir` on SQLite, a fresh PostgreSQL database (dropped after the test) on PostgreSQL. */
export async function cliDatabase(backend: 'sqlite' | 'postgres', dir: string): Promise<string> {
  if (backend === 'sqlite') return join(dir, `${backend}.db`);
  const database = await freshPostgresDatabase();
  onCleanup(() => database.close());
  return database.url;
}

/** textrelay's commands as processes on database `db` with `env`: `ok` expects exit 0, `refused` exit 1 with one line on stderr, nothing on stdout. */
export function commandsOn(db: string, env: Record<string, string>) {
  const cli = (args: string[]) => runCli([...args, '--db', db], env);
  return {
    async ok(args: string[]): Promise<CliResult> {
      const result = await cli(args);
      expect(result.code, describeRun(result)).toBe(0);
      return result;
    },
    async refused(args: string[]): Promise<CliResult> {
      const result = await cli(args);
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      return result;
    },
  };
}
