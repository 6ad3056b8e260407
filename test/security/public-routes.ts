/**
 * The routes anyone may call without credentials, each with the reason. Every other route must
 * refuse a caller without credentials: the auth matrix fails on a route that is open and not listed
 * here, so making a route public is a decision written down, not an accident.
 */
import type { Route } from '../helpers/route-table.ts';

export type PublicRoute = { matches: (route: Route) => boolean; reason: string };

const exactly = (method: string, path: string) => (route: Route) => route.method === method && route.path === path;

export const PUBLIC_ROUTES: PublicRoute[] = [
  { matches: exactly('GET', '/healthz'), reason: 'liveness probe for orchestrators: says only that the process runs' },
  { matches: exactly('GET', '/readyz'), reason: 'readiness probe: says only whether the database takes writes' },
  { matches: exactly('GET', '/openapi.json'), reason: 'the API description, the same for everyone' },
  {
    matches: (route) => route.method === 'GET' && (route.path === '/docs' || route.path.startsWith('/docs/')),
    reason: 'the API reference viewer and its static assets, the same for everyone',
  },
  {
    matches: exactly('GET', '/metrics'),
    reason: 'Prometheus counts without account data, open like the health checks (TEXTRELAY_METRICS_TOKEN closes it)',
  },
  {
    matches: (route) => route.method === 'GET' && route.path.startsWith('/inbox/assets/'),
    reason: "the inbox's stylesheet and script, no data",
  },
  { matches: exactly('GET', '/inbox/login'), reason: 'the sign-in form: where a stranger is sent' },
  { matches: exactly('POST', '/inbox/login'), reason: 'signing in: credentials in the form are what it checks' },
  { matches: exactly('POST', '/inbox/logout'), reason: 'signing out ends whatever session the cookie names, if any' },
  {
    matches: exactly('GET', '/media/:file'),
    reason: "uploaded media and group photos: the 32 random bytes of the id are the credential, so phones can fetch a send's media_url",
  },
];

export function publicReason(route: Route): string | undefined {
  return PUBLIC_ROUTES.find((entry) => entry.matches(route))?.reason;
}
