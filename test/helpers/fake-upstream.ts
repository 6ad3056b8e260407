/** A provider on 127.0.0.1 port 0 that records what it is sent and answers as each test scripts it. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJson } from './http.ts';

export type UpstreamRequest = { method: string; path: string; headers: IncomingMessage['headers']; body: any };
/** An answer to give: status and JSON body, or `hang` to never answer (a provider gone silent). */
export type ScriptedAnswer = { status: number; body?: unknown } | 'hang';

export async function startFakeUpstream(answer: (request: UpstreamRequest, index: number) => ScriptedAnswer) {
  const requests: UpstreamRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: UpstreamRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: parseJson(text) ?? text,
      };
      requests.push(request);
      const scripted = answer(request, requests.length - 1);
      if (scripted === 'hang') hanging.add(res);
      else
        res
          .writeHead(scripted.status, { 'content-type': 'application/json' })
          .end(scripted.body === undefined ? '' : JSON.stringify(scripted.body));
      for (const waiter of [...waiters]) {
        if (requests.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Resolves once `count` requests have arrived. */
    received(count: number): Promise<void> {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close(): Promise<void> {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>;
