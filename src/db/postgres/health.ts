import type postgres from 'postgres';

/**
 * Whether PostgreSQL answers, asked every `intervalMs` in the background, so that /readyz answers
 * at once without a query of its own; a question left unanswered for a whole interval counts as down.
 */
export function watchPostgresHealth(client: postgres.Sql, intervalMs = 5_000) {
  let healthy = true;
  let asking = false;
  const timer = setInterval(() => {
    if (asking) {
      healthy = false;
      return;
    }
    asking = true;
    client`select 1`.then(
      () => {
        healthy = true;
        asking = false;
      },
      () => {
        healthy = false;
        asking = false;
      },
    );
  }, intervalMs);
  timer.unref();
  return { isHealthy: () => healthy, stop: () => clearInterval(timer) };
}
