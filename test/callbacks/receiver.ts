import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the receiver got it. */
export type Received = { path: string; headers: IncomingHttpHeaders; body: string; json: any };

/** How the receiver answers the n-th request (0-based); may be async to answer late. */
export type Answer = (request: Received, index: number, response: ServerResponse) => unknown;

export const answerOk: Answer = (_request, _index, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

/**
 * A real HTTP receiver on 127.0.0.1, port 0: what the dispatcher's clients run. Records every
 * request; `answer` decides the reply (200 "ok" unless told otherwise) and can be swapped.
 */
export async function startReceiver(answer: Answer = answerOk) {
  const received: Received[] = [];
  let current = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request: Received = { path: req.url ?? '/', headers: req.headers, body, json };
      const index = received.length;
      received.push(request);
      Promise.resolve(current(request, index, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    setAnswer(next: Answer) {
      current = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
