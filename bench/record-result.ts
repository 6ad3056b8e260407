import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes one run's figures under its label into a results file, keeping the other labels' last
 * runs (e.g. "before" and "after" a change), and prints them.
 */
export function recordResult(file: URL, result: { label: string } & Record<string, unknown>): void {
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // first run: no file yet
  }
  writeFileSync(file, `${JSON.stringify({ ...previous, [result.label]: result }, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}
