import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** What a reverse proxy in front may tell about the original request, and whether the public address is https. */
export type ProxySettings = {
  /** TEXTRELAY_TRUST_PROXY: believe X-Forwarded-For and X-Forwarded-Proto; otherwise a client could forge them. */
  trustForwardedHeaders: boolean;
  /** TEXTRELAY_PUBLIC_URL is https: browsers reach this server over TLS whatever a request says. */
  publicUrlIsHttps: boolean;
};

/** The address requests answered in-process (no socket) are counted under. */
const NO_SOCKET = 'unknown';

/** The value the proxy next to us added: earlier ones came from the client and may be anything. */
function lastForwarded(c: Context, header: string): string | undefined {
  const value = c.req.header(header)?.split(',').at(-1)?.trim();
  return value === '' ? undefined : value;
}

/** The address of the peer that sent this request; the proxy's word for it only when the proxy is trusted. */
export function clientAddress(c: Context, proxy: ProxySettings): string {
  const forwarded = proxy.trustForwardedHeaders ? lastForwarded(c, 'x-forwarded-for') : undefined;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return forwarded ?? incoming?.socket.remoteAddress ?? NO_SOCKET;
}

/** Whether the browser reached us over https, so that cookies it gets may be marked Secure. */
export function reachedOverHttps(c: Context, proxy: ProxySettings): boolean {
  if (proxy.publicUrlIsHttps) return true;
  const forwardedProto = proxy.trustForwardedHeaders ? lastForwarded(c, 'x-forwarded-proto') : undefined;
  return (forwardedProto?.toLowerCase() ?? new URL(c.req.url).protocol.slice(0, -1)) === 'https';
}
