import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { type CopyProgress, copySqliteFileToPostgres, isOpenElsewhere } from '../data-migration.ts';
import { StartupError } from '../startup-error.ts';
import { type ProgressStream, progressLine } from './progress.ts';
import { UsageError } from './usage-error.ts';
import type { CommandOutput } from './webhooks.ts';

export type MigrateDataFlags = { from?: string | undefined; to?: string | undefined };

const POSTGRES_URL = 'postgres://user:password@host:port/database';

const Flags = z.object({
  from: z.string({ message: '--from FILE is required: the SQLite file to copy' }).min(1, { message: '--from FILE must name a file' }),
  to: z
    .string({ message: `--to URL is required: the PostgreSQL database to copy into (${POSTGRES_URL})` })
    .regex(/^postgres(ql)?:\/\//i, { message: `--to must be a PostgreSQL URL: ${POSTGRES_URL}` }),
});

/** Each table's progress on its own line: redrawn in place on a terminal, its row count when done. */
function tableProgress(stream: ProgressStream): (progress: CopyProgress) => void {
  let current: { table: string; line: ReturnType<typeof progressLine> } | undefined;
  return ({ table, copied, total }) => {
    if (current?.table !== table) current = { table, line: progressLine(stream, `${table}:`) };
    current.line.update(copied, total);
    if (copied === total) current.line.finish(`${table}: ${total} ${total === 1 ? 'row' : 'rows'}`);
  };
}

/**
 * `textrelay migrate-data --from FILE --to URL`: copies a SQLite database, checked and migrated
 * as `serve` would, into an empty PostgreSQL database, migrating it first. The rows per table go
 * to `progress` as they are copied; the answer is the summary.
 */
export async function migrateDataCommand(flags: MigrateDataFlags, config: Config, progress: ProgressStream): Promise<CommandOutput> {
  const parsed = Flags.safeParse(flags);
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => issue.message).join('\n'), 'migrate-data');
  const { from, to } = parsed.data;
  // Opening a missing file would create an empty database, and copy nothing.
  if (!existsSync(from)) throw new StartupError(`cannot copy ${from}: no such file`);
  if (isOpenElsewhere(from)) {
    progress.write(
      `warning: ${from} is open in another process (a running server?): the copy reads one snapshot, and rows written after it are not copied; stop the server first\n`,
    );
  }
  const started = performance.now();
  const { database, tables } = await copySqliteFileToPostgres(from, to, config, tableProgress(progress));
  const rows = tables.reduce((sum, table) => sum + table.rows, 0);
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  return {
    value: { from, database, rows, seconds, tables: Object.fromEntries(tables.map((table) => [table.table, table.rows])) },
    human: `Copied ${rows} rows of ${tables.length} tables from ${from} to the PostgreSQL database "${database}" in ${seconds} s.`,
  };
}
