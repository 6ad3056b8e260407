// Whether dist/ holds a build of the current sources, for bin/textrelay.js (run the build, else the
// sources through tsx) and the benchmark (build first, so it measures what `npm start` runs).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The compiled entry point of the checkout at `root`, or undefined when it is missing or older than a file under src/. */
export function currentBuild(root) {
  const built = join(root, 'dist', 'cli.js');
  if (!existsSync(built)) return undefined;
  const src = join(root, 'src');
  const newestSource = Math.max(...readdirSync(src, { recursive: true }).map((name) => statSync(join(src, String(name))).mtimeMs));
  return statSync(built).mtimeMs >= newestSource ? built : undefined;
}
