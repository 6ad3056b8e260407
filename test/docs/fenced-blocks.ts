import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/process.ts';
import { NOT_RUN, type NotRun } from './not-run.ts';

/** A fenced code block of a doc: its language tag, its text (a list item's indent removed), the line of its fence. */
export type FencedBlock = { doc: string; line: number; lang: string; code: string };

/** The docs whose blocks are checked: the README and every page of docs/. */
export function documentedPages(): string[] {
  const pages = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.sort().map((name) => `docs/${name}`)];
}

export function fencedBlocks(doc: string): FencedBlock[] {
  const text = readFileSync(join(REPO_ROOT, doc), 'utf8');
  const blocks: FencedBlock[] = [];
  for (const match of text.matchAll(/^( *)```(\S*)\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!.length;
    const code = match[3]!
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    blocks.push({ doc, line: text.slice(0, match.index).split('\n').length, lang: match[2]!, code });
  }
  return blocks;
}

/**
 * The commands a shell block runs: continuation lines joined, comments dropped, split at `&&`,
 * `||`, `;`, `|` and `$(…)`, leading `NAME=value` assignments removed. Quotes are respected.
 */
export function shellCommands(code: string): string[] {
  const joined = code.replace(/\\\n/g, ' ');
  const commands: string[] = [];
  for (const line of joined.split('\n')) {
    let current = '';
    let quote: string | undefined;
    const flush = () => {
      const command = current.trim().replace(/^(\w+=("[^"]*"|'[^']*'|\S*)\s*)+/, '');
      if (command !== '') commands.push(command);
      current = '';
    };
    for (let i = 0; i < line.length; i++) {
      const char = line[i]!;
      if (quote) {
        if (char === quote) quote = undefined;
        current += char;
      } else if (char === '"' || char === "'") {
        quote = char;
        current += char;
      } else if (char === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
        break;
      } else if (char === '$' && line[i + 1] === '(') {
        flush();
        i++;
      } else if (char === ')' || char === ';' || char === '|' || char === '&') {
        flush();
        if (line[i + 1] === char) i++;
      } else {
        current += char;
      }
    }
    flush();
  }
  return commands;
}

/**
 * What a command of a runnable shell block may be: what a reader of a fresh clone can run with
 * nothing but the sandbox. `npm install` and `npm start`/`serve` stand for the checkout being
 * installed and the server running (the test has both); every other command runs for real.
 */
const SANDBOX_COMMANDS = [/^npm (install|start)$/, /^npx textrelay\b/, /^curl\b/, /^jq\b/, /^grep\b/, /^sqlite3\b/, /^export\b/];

/** How the test treats a block: run it, or the NOT_RUN entry that says why not. */
export type Verdict = { run: 'sdk' | 'shell' | 'sql' } | { run: false; entry: NotRun };

/**
 * The rule: a block listed in NOT_RUN is not run, for the reason given there. Otherwise `ts`/`js`
 * blocks run as SDK snippets, `sh` blocks whose every command is a SANDBOX_COMMANDS one run in
 * a shell, `sql` blocks run in the sqlite3 shell on the doc's database; any other block is
 * unclassified, which fails the test.
 */
export function verdictOf(block: FencedBlock): Verdict | undefined {
  const entry = NOT_RUN.find((candidate) => candidate.doc === block.doc && block.code.includes(candidate.contains));
  if (entry) return { run: false, entry };
  if (block.lang === 'ts' || block.lang === 'js') return { run: 'sdk' };
  if (block.lang === 'sql') return { run: 'sql' };
  if (block.lang === 'sh' && shellCommands(block.code).every((command) => SANDBOX_COMMANDS.some((allowed) => allowed.test(command)))) {
    return { run: 'shell' };
  }
  return undefined;
}

/** Every block of the docs that runs as an SDK snippet. */
export function sdkSnippets(): FencedBlock[] {
  return documentedPages()
    .flatMap(fencedBlocks)
    .filter((block) => verdictOf(block)?.run === 'sdk');
}
