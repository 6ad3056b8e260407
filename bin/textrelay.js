#!/usr/bin/env node
// Runs the JavaScript that `npm install` (or `npm run build`) compiled into dist/; when a source file is newer
// than that build, or there is none, tsx compiles the sources on load instead, so an edit is never run stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'cli.js');

function newestSourceChange() {
  const src = join(root, 'src');
  return Math.max(...readdirSync(src, { recursive: true }).map((name) => statSync(join(src, String(name))).mtimeMs));
}

if (existsSync(built) && statSync(built).mtimeMs >= newestSourceChange()) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
