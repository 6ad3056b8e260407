import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { startFakeBlueBubbles } from '../helpers/fake-bluebubbles/server.ts';
import { killAll, runCli } from '../helpers/process.ts';

/** `textrelay serve` with a wrong BlueBubbles password stops with one line that does not carry the password. */

const dir = mkdtempSync(join(tmpdir(), 'textrelay-bb-startup-'));
afterEach(killAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('refuses a wrong BlueBubbles password in one line, exit 1', async () => {
  const fake = await startFakeBlueBubbles();
  try {
    const file = join(dir, 'textrelay.db');
    const env = {
      LOG_LEVEL: 'warn',
      TEXTRELAY_DB: file,
      TEXTRELAY_TRANSPORT: 'bluebubbles',
      TEXTRELAY_BLUEBUBBLES_URL: fake.url,
      TEXTRELAY_BLUEBUBBLES_PASSWORD: 'wrong-password-value',
      TEXTRELAY_PUBLIC_URL: 'https://textrelay.example.com',
    };
    const result = await runCli(['serve', '--port', '0'], env);
    const dump = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect(result.code, dump).toBe(1);
    expect(result.stderr.trim().split('\n'), dump).toHaveLength(1);
    expect(result.stderr.trim(), dump).toMatch(/^textrelay: BlueBubbles refused TEXTRELAY_BLUEBUBBLES_PASSWORD/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('wrong-password-value');
    expect(fake.world.webhooks).toHaveLength(0);
  } finally {
    await fake.close();
  }
}, 60_000);
