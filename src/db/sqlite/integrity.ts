import { StartupError } from '../../startup-error.ts';
import type { Db } from './connection.ts';
import { isDamage } from './sqlite-codes.ts';

export type IntegrityCheck = 'passed' | 'skipped';

/** The refusal of a damaged file, in one line. */
export function damagedFile(file: string, detail: string): StartupError {
  return new StartupError(`${file} is damaged (${detail}); restore it from a backup or use another file`);
}

/**
 * SQLite's quick_check (every page and record, not the match of indexes to tables) when the file's
 * pages take at most `maxBytes`: it reads the whole file, so on a larger one it would delay every
 * start by seconds. Damage in a file that was not checked surfaces at run time (see damage-watch.ts).
 */
export function checkIntegrity(db: Db, file: string, maxBytes: number): IntegrityCheck {
  const client = db.$client;
  const bytes = (client.prepare('select page_count * page_size from pragma_page_count, pragma_page_size').pluck().get() as number) ?? 0;
  if (bytes > maxBytes) return 'skipped';
  let findings: string[];
  try {
    findings = client.prepare('pragma quick_check(1)').pluck().all() as string[];
  } catch (error) {
    if (isDamage(error)) throw damagedFile(file, (error as Error).message);
    throw error;
  }
  if (findings.length === 1 && findings[0] === 'ok') return 'passed';
  // A finding spans lines ("*** in database main ***", then the page): one line is printed.
  const lines = findings.flatMap((finding) => finding.split('\n')).filter((line) => line.trim() !== '' && !line.startsWith('***'));
  throw damagedFile(file, lines.join('; '));
}
