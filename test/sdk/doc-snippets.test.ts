import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sdkSnippets } from '../docs/fenced-blocks.ts';
import { makeTestApp } from '../helpers/app.ts';
import { serveOnLoopback } from '../helpers/listen.ts';
import { REPO_ROOT } from '../helpers/process.ts';

/**
 * Every TypeScript and JavaScript snippet of the README and docs/ (those not listed in
 * test/docs/not-run.ts), run as written by Node (through tsx, as a reader pasting it into a file
 * would) against the app, with only the SDK's own variables set.
 */

/** Under the repository, so that `import 'sendblue'` finds its node_modules; test/artifacts is not committed. */
const SNIPPETS_DIR = join(REPO_ROOT, 'test', 'artifacts', 'doc-snippets');

const cases = sdkSnippets().map(({ doc, line, lang, code }) => ({ name: `${doc}:${line}`, doc, line, lang, code }));

describe('the SDK snippets of the docs', () => {
  it('are found: the docs have some', () => {
    expect(cases.filter((snippet) => snippet.doc === 'docs/sdk.md').length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)('$name runs as written', async ({ doc, line, lang, code }) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const server = await serveOnLoopback(t.app.fetch);
    try {
      mkdirSync(SNIPPETS_DIR, { recursive: true });
      const file = join(SNIPPETS_DIR, `${doc.replaceAll('/', '-')}-${line}.${lang}`);
      writeFileSync(file, code);
      const env = {
        PATH: process.env.PATH,
        SENDBLUE_API_API_KEY: account.api_key_id,
        SENDBLUE_API_API_SECRET: account.api_secret_key,
        SENDBLUE_API_BASE_URL: server.url,
      };
      const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: REPO_ROOT, env, timeout: 60_000 });
      expect(result.stderr).toBe('');
    } finally {
      await server.close();
    }
  });
});
