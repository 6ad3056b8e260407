/**
 * The calibration point: a bare `node:http` server that reads a JSON body, parses it and answers
 * JSON, with no framework, validation or database. What textrelay does per request is measured
 * as a fraction of what this one Node process can do on the same core.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let served = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as object);
    served += 1;
    const answer = JSON.stringify({ ok: true, served, echoed: Object.keys(body).length });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
