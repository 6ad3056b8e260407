import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB } from '../helpers/fixtures.ts';
import { jsonRequest, readReply } from '../helpers/http.ts';
import { type Credentials, createAccount } from '../helpers/live.ts';
import { childEnv, killAll, REPO_ROOT, type RunningServer, startServer } from '../helpers/process.ts';
import { sampleValue, scrape } from '../metrics/scrape.ts';

// One real `textrelay serve` process, its stdout piped (not a terminal): JSON lines, as in production.

const CONTENT = 'meet me at the north gate at 7';
let dir: string;
let server: RunningServer;
let credentials: Credentials;
let handles: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'textrelay-logs-'));
  const db = join(dir, 'textrelay.db');
  credentials = await createAccount(db, 'ops@example.com');
  server = await startServer(['--port', '0'], { TEXTRELAY_DB: db, LOG_LEVEL: 'info' });
  handles = [];
  for (const [i, number] of [ALICE, BOB].entries()) {
    const headers = { 'svc-api-key-id': credentials.api_key_id, 'svc-api-secret-key': credentials.api_secret_key };
    const reply = await readReply(
      await fetch(
        `${server.url}/api/send-message`,
        jsonRequest('POST', headers, { number, content: CONTENT }, { 'x-request-id': `send-${i}` }),
      ),
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    expect(reply.headers.get('x-request-id')).toBe(`send-${i}`);
    handles.push(reply.body.message_handle as string);
  }
  await fetch(`${server.url}/healthz`);
});

afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('a serve process', () => {
  it('serves /metrics with its own counts and the process metrics of Node.js', async () => {
    const { text, samples } = await scrape((path) => fetch(`${server.url}${path}`));
    expect(sampleValue(samples, 'textrelay_http_requests_total', { method: 'POST', route: '/api/send-message', status: '202' }), text).toBe(
      2,
    );
    const messages = samples.filter((sample) => sample.name === 'textrelay_messages').reduce((sum, sample) => sum + sample.value, 0);
    expect(messages).toBe(2);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(sampleValue(samples, name), name).toBeGreaterThanOrEqual(0);
    }
  });

  it('logs JSON lines: one access line per request with its id, and neither secrets nor message content', async () => {
    expect((await server.stop()).code).toBe(0);
    const out = server.stdout();
    const logLines = out.slice(out.indexOf('textrelay listening on')).split('\n').slice(1, -1);
    const lines = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'listening')).not.toHaveProperty('requestId');

    const access = lines.filter((line) => line.msg === 'request');
    expect(access.map((line) => [line.requestId, line.route, line.status])).toEqual([
      ['send-0', '/api/send-message', 202],
      ['send-1', '/api/send-message', 202],
    ]);
    for (const secret of [credentials.api_secret_key, CONTENT, ALICE, BOB]) expect(out).not.toContain(secret);
  });
});

describe('a serve process attached to a terminal', () => {
  // util-linux's `script` gives the child a pseudo-terminal, as a person's shell would.
  it.skipIf(!existsSync('/usr/bin/script'))('logs coloured lines for people instead of JSON', async () => {
    const env = childEnv({ TEXTRELAY_DB: join(dir, 'terminal.db'), LOG_LEVEL: 'info' });
    const child = spawn('/usr/bin/script', ['-qfec', 'node bin/textrelay.js serve --port 0', '/dev/null'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    try {
      const plain = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no complete listening entry within 30 s:\n${out}`)), 30_000);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const text = stripVTControlCharacters(out);
          // Pretty lines reach the pseudo-terminal in pieces: wait for the last field of the entry.
          if (/\] INFO: listening\r?\n[\s\S]*transport: .*\r?\n/.test(text)) {
            clearTimeout(timer);
            resolve(text);
          }
        });
      });
      expect(out).toContain('\u001b['); // coloured
      expect(plain).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: listening\r?$/m);
      expect(plain).toMatch(/^ {4}transport: "sandbox"\r?$/m);
      expect(plain).not.toContain('{"level"');
    } finally {
      child.kill('SIGKILL'); // the pseudo-terminal closes, and the server gets SIGHUP
    }
  });
});
