/**
 * What a test opened (servers, dispatchers, apps), closed after it whatever happened: the setup
 * file (test/helpers/per-file-hooks.ts) runs them after every test of every file.
 */
const cleanups: (() => Promise<void> | void)[] = [];

export function onCleanup(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

/** Runs and forgets every cleanup registered, the latest first. */
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}
