import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildBinary } from '../../scripts/build-binary.ts';
import { jsonRequest, readReply } from '../helpers/http.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { killAll, type Program, runCli, startServer } from '../helpers/process.ts';

// The single executable, built as `npm run build:binary` builds it, copied alone into an empty
// folder (no node_modules, no sources, no migrations anywhere above it) and run from there.

// Bundling and injecting a 100 MB Node binary: seconds on an idle machine, a minute on a loaded one.
const BUILD = 240_000;
const SLOW = 120_000;

let root: string;
let program: Program;
let env: Record<string, string>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'textrelay-binary-'));
  const built = await buildBinary(join(root, 'dist'));
  const alone = join(root, 'alone');
  mkdirSync(alone);
  copyFileSync(built, join(alone, 'textrelay'));
  program = { command: join(alone, 'textrelay'), args: [], cwd: alone };
  // The extracted addon and migrations go to this cache folder, not the user's.
  env = { XDG_CACHE_HOME: join(root, 'cache'), TEXTRELAY_DB: './data/textrelay.db', LOG_LEVEL: 'warn' };
}, BUILD);

afterEach(killAll);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the single executable, alone in an empty folder', () => {
  it(
    'serves /healthz, makes an account with its own CLI, sends a message and serves /docs from its assets',
    async () => {
      expect(readdirSync(program.cwd)).toEqual(['textrelay']);

      const help = await runCli(['--help'], env, 30_000, program);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^textrelay \d+\.\d+\.\d+: /);

      const created = await runCli(['accounts', 'create', '--email', 'binary@example.com', '--json'], env, 30_000, program);
      expect(created.code, created.stderr).toBe(0);
      const account = JSON.parse(created.stdout);
      expect(account).toMatchObject({ email: 'binary@example.com', plan: 'blue' });

      const server = await startServer(['--port', '0'], env, 30_000, program);
      const health = await readReply(await fetch(`${server.url}/healthz`));
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'OK' });

      const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
      const sent = await readReply(
        await fetch(`${server.url}/api/send-message`, jsonRequest('POST', headers, { number: '+14155550100', content: 'from one file' })),
      );
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      expect(sent.body).toMatchObject({ status: 'QUEUED', content: 'from one file', number: '+14155550100' });
      const status = await readReply(await fetch(`${server.url}/api/status?handle=${sent.body.message_handle}`, { headers }));
      expect(status.status).toBe(200);

      // The viewer's files come from the executable's assets: the page names them, each is served.
      const page = await (await fetch(`${server.url}/docs`)).text();
      const assets = [...page.matchAll(/(?:href|src)="(\/docs\/assets\/[^"]+)"/g)].map((match) => match[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets) {
        // Read whole: an unread body would keep its connection busy and hold up the shutdown below.
        const response = await fetch(`${server.url}${asset}`);
        expect(response.status, asset).toBe(200);
        expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
      }

      expect(await server.stop()).toEqual({ code: 0, signal: null });
      // The database is where TEXTRELAY_DB said, relative to the folder; nothing else was written beside the executable.
      expect(readdirSync(program.cwd).sort()).toEqual(['data', 'textrelay']);
    },
    SLOW,
  );

  it(
    'runs on PostgreSQL with the driver and migrations it carries',
    async () => {
      const database = await freshPostgresDatabase();
      try {
        const onPostgres = { ...env, TEXTRELAY_DATABASE_URL: database.url };
        const created = await runCli(['accounts', 'create', '--email', 'pg-binary@example.com', '--json'], onPostgres, 30_000, program);
        expect(created.code, created.stderr).toBe(0);
        const account = JSON.parse(created.stdout);
        const server = await startServer(['--port', '0'], onPostgres, 30_000, program);
        const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
        const sent = await readReply(
          await fetch(
            `${server.url}/api/send-message`,
            jsonRequest('POST', headers, { number: '+14155550100', content: 'from PostgreSQL' }),
          ),
        );
        expect(sent.status, JSON.stringify(sent.body)).toBe(202);
        expect(await server.stop()).toEqual({ code: 0, signal: null });
        const [stored] = await database.db.$client`select content from messages`;
        expect(stored?.content).toBe('from PostgreSQL');
      } finally {
        await database.close();
      }
    },
    SLOW,
  );
});
