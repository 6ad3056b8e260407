import { Hono } from 'hono';

/** Liveness answers while the process runs; readiness only while the database takes writes. */
export function healthRouter(isReady: () => boolean) {
  return new Hono()
    .get('/healthz', (c) => c.json({ status: 'OK' }))
    .get('/readyz', (c) => (isReady() ? c.json({ status: 'OK' }) : c.json({ status: 'ERROR', message: 'database not writable' }, 503)));
}
