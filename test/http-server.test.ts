import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, DEFAULT_HTTP_LIMITS, type HttpLimits, listen } from '../src/http-server.ts';

/**
 * Slow clients on real sockets against the server `textrelay serve` builds: connections that send
 * their headers a byte at a time are closed after the header timeout while a normal request is
 * still answered, and connections past the cap are closed at once. The limits are shrunk so that
 * the test takes seconds; serve uses DEFAULT_HTTP_LIMITS.
 */

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function startServer(limits: Partial<HttpLimits>): Promise<number> {
  const server = createHttpServer({ ...DEFAULT_HTTP_LIMITS, ...limits });
  server.on('request', (_request, response) => response.end('ok'));
  servers.push(server);
  await listen(server, 0, '127.0.0.1');
  return (server.address() as { port: number }).port;
}

/** A client that opens a connection and sends the start of a request, one byte every 100 ms; resolves with when it was closed. */
function slowClient(port: number): { closed: Promise<number>; opened: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const request = `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(10_000)}`;
  let sent = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed && sent < request.length) socket.write(request[sent++]!);
  }, 100);
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<number>((resolve) => {
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(timer);
      resolve(performance.now());
    });
  });
  return { closed, opened };
}

describe('the HTTP server under slow clients', () => {
  it('closes connections that send headers slowly after the header timeout, and keeps answering others', async () => {
    const headersTimeoutMs = 1_000;
    const port = await startServer({ headersTimeoutMs, requestTimeoutMs: 2_000, timeoutCheckIntervalMs: 100 });
    const started = performance.now();
    const slow = Array.from({ length: 300 }, () => slowClient(port));
    await Promise.all(slow.map((client) => client.opened));

    const reply = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe('ok');

    const closedAt = await Promise.all(slow.map((client) => client.closed));
    for (const at of closedAt) {
      expect(at - started).toBeGreaterThanOrEqual(headersTimeoutMs - 50);
      expect(at - started).toBeLessThan(headersTimeoutMs + 3_000);
    }
  }, 30_000);

  it('closes connections past the cap at once', async () => {
    const port = await startServer({ maxConnections: 5, headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 });
    const held = Array.from({ length: 5 }, () => slowClient(port));
    await Promise.all(held.map((client) => client.opened));
    // Let the server accept the five before the sixth arrives.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    const extra = slowClient(port);
    expect((await extra.closed) - started).toBeLessThan(2_000);
    const stillOpen = await Promise.race([
      Promise.any(held.map((client) => client.closed)).then(() => false),
      new Promise((resolve) => setTimeout(() => resolve(true), 300)),
    ]);
    expect(stillOpen).toBe(true);
  }, 30_000);

  it('serve uses the documented limits', () => {
    expect(DEFAULT_HTTP_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 10_000,
      timeoutCheckIntervalMs: 1_000,
    });
  });
});
