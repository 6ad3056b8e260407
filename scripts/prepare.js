#!/usr/bin/env node
// npm runs this after every install. A production install (npm ci --omit=dev) has no TypeScript:
// it builds nothing, and bin/textrelay.js runs the sources through tsx, a runtime dependency.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

// `npx textrelay` in a checkout links it into npm's exec cache, which runs this again: the checkout's
// own install built it already (and bin/textrelay.js falls back to tsx for sources newer than dist/).
if (process.env.npm_command === 'exec') process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.log('textrelay: no TypeScript here (a production install), so no dist/: the CLI runs the sources through tsx');
  process.exit(0);
}
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
