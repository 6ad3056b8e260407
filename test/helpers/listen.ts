import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export type Listening = { url: string; close: () => Promise<void> };

/** Serves an app on 127.0.0.1 at a free port, through @hono/node-server as `textrelay serve` does. */
export async function serveOnLoopback(fetch: Parameters<typeof serve>[0]['fetch']): Promise<Listening> {
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A keep-alive connection from undici's global pool would hold close() open until it idles out.
        server.closeAllConnections();
      }),
  };
}
