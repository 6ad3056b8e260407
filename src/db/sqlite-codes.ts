/** SQLite's primary result code of `error` (SQLITE_IOERR for SQLITE_IOERR_WRITE), or undefined when it is not SQLite's. */
export function sqliteFamily(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const [, family] = /^(SQLITE_[A-Z]+)/.exec(code) ?? [];
  return family;
}

/** The file's pages or header are not SQLite's: nothing read from it can be trusted until it is restored. */
export function isDamage(error: unknown): boolean {
  const family = sqliteFamily(error);
  return family === 'SQLITE_CORRUPT' || family === 'SQLITE_NOTADB';
}
