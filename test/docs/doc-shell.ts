import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApp } from '../helpers/app.ts';
import { serveOnLoopback } from '../helpers/listen.ts';
import { childEnv, REPO_ROOT } from '../helpers/process.ts';

/**
 * Stand-ins on the shell's PATH for what a fresh clone has: `npx textrelay` runs the checkout's
 * CLI (remembering the credentials it prints, for the `key_...` a later line pastes), `npm
 * install`/`npm start` and `serve` do nothing because the checkout is installed and the server
 * runs, and `curl` fails on an error answer (a reader sees the error; a test must fail) and reads a
 * stream (`-N`) for two seconds.
 */
const SHIMS: Record<string, string> = {
  npx: `#!/usr/bin/env bash
if [ "$1" != textrelay ]; then echo "npx $1: only npx textrelay runs in the docs test" >&2; exit 127; fi
shift
if [ "\${1:-}" = serve ]; then exit 0; fi
out=$(node "$DOCS_REPO/bin/textrelay.js" "$@"); rc=$?
printf '%s\\n' "$out"
key=$(sed -n 's/^ *svc-api-key-id: *//p' <<<"$out"); secret=$(sed -n 's/^ *svc-api-secret-key: *//p' <<<"$out")
if [ -n "$key" ]; then printf '%s' "$key" >"$DOCS_STATE/key"; printf '%s' "$secret" >"$DOCS_STATE/secret"; fi
exit $rc
`,
  npm: `#!/usr/bin/env bash
case "$*" in install|start) exit 0 ;; esac
echo "npm $*: not run by the docs test" >&2; exit 127
`,
  curl: `#!/usr/bin/env bash
real=$(PATH=\${PATH#*:} command -v curl)
for arg in "$@"; do
  if [[ "$arg" =~ ^-[a-zA-Z]*N[a-zA-Z]*$ ]]; then "$real" --fail-with-body --show-error --max-time 2 "$@"; rc=$?; [ $rc = 28 ] && exit 0; exit $rc; fi
done
exec "$real" --fail-with-body --show-error --max-time 10 "$@"
`,
};

export type ShellResult = { code: number | null; stdout: string; stderr: string };

/**
 * A reader's terminal for one doc: a fresh directory holding `./data/textrelay.db` (the default
 * database), the app served on it in-process with an account of its own (the development account
 * `npm start` prints), and the variables a block exports kept for the doc's next blocks.
 */
export type DocShell = {
  /** Runs a block with `set -euo pipefail`, localhost:3000 and the key placeholders replaced by the real ones. */
  run(code: string): Promise<ShellResult>;
  close(): Promise<void>;
};

export async function openDocShell(): Promise<DocShell> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-docs-'));
  const state = join(dir, '.state');
  const bin = join(dir, '.bin');
  mkdirSync(join(dir, 'data'));
  mkdirSync(state);
  mkdirSync(bin);
  for (const [name, script] of Object.entries(SHIMS)) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  const t = makeTestApp({ database: join(dir, 'data', 'textrelay.db') });
  const account = await t.createAccount({ email: 'dev@textrelay.local' });
  writeFileSync(join(state, 'key'), account.api_key_id);
  writeFileSync(join(state, 'secret'), account.api_secret_key);
  const server = await serveOnLoopback(t.app.fetch);
  const host = server.url.replace('http://', '');

  const run = (code: string) => {
    const pasted = code
      .replace(/https?:\/\/(localhost|127\.0\.0\.1):3000/g, server.url)
      .replace(/\b(localhost|127\.0\.0\.1):3000/g, host)
      .replace(/\bkey_\.\.\./g, '$(cat "$DOCS_STATE/key")')
      .replace(/\bsk_\.\.\./g, '$(cat "$DOCS_STATE/secret")');
    const script = join(dir, '.block.sh');
    writeFileSync(
      script,
      `set -euo pipefail\nif [ -f "$DOCS_STATE/env" ]; then source "$DOCS_STATE/env"; fi\ntrap 'export -p >"$DOCS_STATE/env"' EXIT\n${pasted}\n`,
    );
    const env = childEnv({ PATH: `${bin}:${process.env.PATH}`, DOCS_STATE: state, DOCS_REPO: REPO_ROOT });
    return runBash(script, dir, env);
  };

  return {
    run,
    close: async () => {
      await server.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
