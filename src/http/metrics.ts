import { Hono } from 'hono';
import { ErrorCode } from '../domain/error-codes.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { AppError } from '../services/app-error.ts';
import type { AppEnv } from './env.ts';
import { sameSecret } from './ingest-auth.ts';

/** Whether /metrics is served, and the bearer token a scraper must present (none: open, as /healthz is). */
export type MetricsEndpoint = { enabled: boolean; bearerToken: string | undefined };

const BEARER = /^Bearer\s+(.+)$/i;

/**
 * `GET /metrics` in Prometheus text. It holds counts, not data: no account, number or content
 * appears in it. Open by default, like the health checks, on a server that listens on loopback;
 * a token (TEXTRELAY_METRICS_TOKEN) protects it when the port is reachable from elsewhere.
 */
export function metricsRouter(metrics: Pick<Metrics, 'render'>, bearerToken: string | undefined) {
  return new Hono<AppEnv>().get('/metrics', async (c) => {
    if (bearerToken !== undefined) {
      const presented = c.req.header('authorization')?.match(BEARER)?.[1];
      if (presented === undefined || !sameSecret(presented, bearerToken)) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new AppError(ErrorCode.unauthorized, 'Missing or wrong bearer token for /metrics');
      }
    }
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
}
