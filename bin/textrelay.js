#!/usr/bin/env node
// Runs the JavaScript that `npm install` (or `npm run build`) compiled into dist/; when a source file is newer
// than that build, or there is none, tsx compiles the sources on load instead, so an edit is never run stale.
import { fileURLToPath } from 'node:url';
import { currentBuild } from './build-state.js';

const built = currentBuild(fileURLToPath(new URL('..', import.meta.url)));
if (built !== undefined) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
