import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocShell, openDocShell } from './doc-shell.ts';
import { documentedPages, type FencedBlock, fencedBlocks, verdictOf } from './fenced-blocks.ts';
import { NOT_RUN } from './not-run.ts';

/**
 * Every fenced block of the README and docs/, run as a reader of a fresh clone would paste it, or
 * listed in not-run.ts with why not (the rule: fenced-blocks.ts `verdictOf`, explained in
 * docs/development.md). The SDK snippets run in test/sdk/doc-snippets.test.ts, on both backends.
 */

const blocks = documentedPages().flatMap(fencedBlocks);
const named = (block: FencedBlock) => `${block.doc}:${block.line} (${block.lang || 'no language'})`;

describe('every code block of the docs', () => {
  it('is run or listed as not run, with why', () => {
    const unclassified = blocks.filter((block) => verdictOf(block) === undefined).map(named);
    expect(unclassified, 'run them (sandbox commands only) or add them to test/docs/not-run.ts').toEqual([]);
  });

  it('is judged by its commands: only sandbox ones run', () => {
    const sh = (code: string) => verdictOf({ doc: 'docs/new.md', line: 1, lang: 'sh', code });
    expect(sh('npm install && npm start\nnpx textrelay status   # what the database holds')).toEqual({ run: 'shell' });
    expect(sh('h=$(curl -s localhost:3000/x | jq -r .id)\nexport A="b c"')).toEqual({ run: 'shell' });
    expect(sh('npx textrelay status\npodman run textrelay')).toBeUndefined();
    expect(sh('TEXTRELAY_DB=x textrelay serve')).toBeUndefined();
    expect(sh('curl -s localhost:3000/healthz && npm test')).toBeUndefined();
    expect(verdictOf({ doc: 'docs/new.md', line: 1, lang: '', code: 'any output\n' })).toBeUndefined();
  });

  it('is named by exactly one entry of the not-run list, if listed', () => {
    const stale = NOT_RUN.filter((entry) => {
      const matching = blocks.filter((block) => block.doc === entry.doc && block.code.includes(entry.contains));
      return matching.length !== 1;
    });
    expect(stale, 'each entry must name one block of its doc').toEqual([]);
  });
});

const shellDocs = [...new Set(blocks.filter((block) => isShellOrSql(block)).map((block) => block.doc))];

function isShellOrSql(block: FencedBlock): boolean {
  const verdict = verdictOf(block)?.run;
  return verdict === 'shell' || verdict === 'sql';
}

describe.each(shellDocs)('the shell blocks of %s', (doc) => {
  let shell: DocShell;
  beforeAll(async () => {
    shell = await openDocShell();
  });
  afterAll(async () => {
    await shell?.close();
  });

  const cases = blocks.filter((block) => block.doc === doc && isShellOrSql(block)).map((block) => ({ name: named(block), block }));
  it.each(cases)('$name runs as pasted', async ({ block }) => {
    const code =
      verdictOf(block)?.run === 'sql'
        ? `sqlite3 -readonly -bail -header -column ./data/textrelay.db <<'SQL'\n${block.code}SQL`
        : block.code;
    const result = await shell.run(code);
    // stderr may carry a command's summary; a warning there is a defect a reader would see.
    expect(
      { code: result.code, warnings: result.stderr.match(/^.*warn.*$/gim) },
      `${block.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    ).toEqual({
      code: 0,
      warnings: null,
    });
  });
});
