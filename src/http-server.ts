import { createServer, type Server } from 'node:http';
import { StartupError } from './startup-error.ts';

/** The limits slow or idle clients meet (docs/robustness.md lists them). */
export type HttpLimits = {
  /** A client has this long to send the request line and every header. */
  headersTimeoutMs: number;
  /** ... and this long for the whole request, body included (bodies are at most 1 MiB). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Connections past this many are closed as soon as they are accepted. */
  maxConnections: number;
  /** How often the two request timeouts are checked: a slow client is closed at most this much after its timeout. */
  timeoutCheckIntervalMs: number;
};

export const DEFAULT_HTTP_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
  timeoutCheckIntervalMs: 1_000,
} as const satisfies HttpLimits;

/** A node HTTP server with `limits` and no request handler yet: it is added once the database is open. */
export function createHttpServer(limits: HttpLimits): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

function listenFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'address already in use';
    case 'EADDRNOTAVAIL':
      return 'this machine has no such address';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (ports below 1024 need privileges)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return 'no such host';
    default:
      return error.message;
  }
}

/** Binds `host:port`, or rejects with a StartupError naming the address and the reason. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new StartupError(`cannot listen on ${host}:${port}: ${listenFailure(error)}`));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
