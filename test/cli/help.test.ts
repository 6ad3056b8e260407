import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CliResult, describeRun, runCli } from '../helpers/process.ts';

// Help and usage errors of the real CLI (node bin/textrelay.js). Nothing here opens a database:
// TEXTRELAY_DB points at a folder that does not exist, and must still not exist afterwards.

const env = { TEXTRELAY_DB: '/nonexistent/textrelay-help/textrelay.db', LOG_LEVEL: 'warn' };
const COMMANDS = ['serve', 'migrate', 'accounts', 'inbound', 'webhooks', 'tail', 'status', 'healthcheck'];
const SLOW = 120_000;
// Children start side by side within a test: on a loaded 2-core box each can take a while.
const RUN_MS = 60_000;

const run = (args: string[]) => runCli(args, env, RUN_MS);

function succeeded(result: CliResult): string {
  expect(result.code, describeRun(result)).toBe(0);
  expect(result.stderr, describeRun(result)).toBe('');
  return result.stdout;
}

function refused(result: CliResult): string {
  expect(result.code, describeRun(result)).toBe(2);
  expect(result.stdout, describeRun(result)).toBe('');
  expect(result.stderr).toMatch(/usage/i);
  return result.stderr;
}

describe('textrelay help', () => {
  it(
    '--help lists every command with what it does',
    async () => {
      const [long, short, bare] = await Promise.all([run(['--help']), run(['-h']), run(['help'])]);
      const text = succeeded(long);
      expect(succeeded(short)).toBe(text);
      expect(succeeded(bare)).toBe(text);
      for (const command of COMMANDS) expect(text).toMatch(new RegExp(`^  ${command}\\s+\\S`, 'm'));
      expect(text).toContain('textrelay help COMMAND');
    },
    SLOW,
  );

  it(
    'serve --help names its flags and the environment variables it reads, with their defaults',
    async () => {
      const text = succeeded(await run(['serve', '--help']));
      for (const flag of ['--port N', '--host H', '--db FILE', '--transport']) expect(text).toContain(flag);
      expect(text).toMatch(/^\s+PORT\s+.*\(default 3000\)$/m);
      expect(text).toMatch(/^\s+TEXTRELAY_DB\s+.*\(default \.\/data\/textrelay\.db\)$/m);
      for (const name of ['HOST', 'TEXTRELAY_TRANSPORT', 'TEXTRELAY_UPSTREAM_URL', 'TEXTRELAY_WEBHOOK_RETRY_SCHEDULE', 'LOG_LEVEL']) {
        expect(text).toMatch(new RegExp(`^\\s+${name}\\s`, 'm'));
      }
    },
    SLOW,
  );

  it(
    '`help webhooks` and `webhooks --help` print the same page: both actions, every flag',
    async () => {
      const [viaHelp, viaFlag, tail] = await Promise.all([run(['help', 'webhooks']), run(['webhooks', '--help']), run(['help', 'tail'])]);
      const text = succeeded(viaHelp);
      expect(succeeded(viaFlag)).toBe(text);
      expect(text).toContain('textrelay webhooks list');
      expect(text).toContain('textrelay webhooks replay');
      for (const flag of ['--failed', '--limit N', '--id WEBHOOK_ID', '--failed-since TIME', '--db FILE', '--json'])
        expect(text).toContain(flag);
      expect(text).toMatch(/^\s+TEXTRELAY_DB\s/m);
      expect(succeeded(tail)).toContain('--since TIME');
    },
    SLOW,
  );

  it(
    'an unknown command: exit 2, the list of commands on stderr',
    async () => {
      const [unknown, unknownHelp] = await Promise.all([run(['frobnicate']), run(['help', 'frobnicate'])]);
      for (const result of [unknown, unknownHelp]) {
        const text = refused(result);
        expect(text).toContain('Unknown command: frobnicate');
        for (const command of COMMANDS) expect(text).toContain(command);
      }
    },
    SLOW,
  );

  it(
    "an unknown flag, or another command's flag: exit 2 with that command's usage, and serve never starts",
    async () => {
      const [unknown, foreign, several] = await Promise.all([
        run(['serve', '--bogus']),
        run(['serve', '--port', '0', '--json']),
        run(['migrate', '--email', 'a@example.com', '--failed']),
      ]);
      const unknownText = refused(unknown);
      expect(unknownText).toContain("'--bogus'");
      expect(unknownText).toContain('textrelay serve [--port N]');
      const foreignText = refused(foreign);
      expect(foreignText).toContain('textrelay serve does not take --json');
      expect(foreignText).toContain('textrelay help serve');
      expect(refused(several)).toContain('textrelay migrate does not take --email, --failed');
      expect(existsSync('/nonexistent/textrelay-help')).toBe(false);
    },
    SLOW,
  );
});
