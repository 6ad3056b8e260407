/**
 * `npm run build:binary`: textrelay as one executable file, dist/textrelay. The sources bundled
 * by esbuild into one CommonJS file, made a Node single executable application (SEA) with the
 * SQLite addon, the migrations and the /docs viewer's files as assets (src/executable-assets.ts
 * writes them out at start). Builds for the platform and Node it runs on. See docs/binary.md.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ADDON_ASSET, MIGRATIONS_ASSET } from '../src/db/database-files.ts';
import { ASSET_MANIFEST, type AssetManifest } from '../src/executable-assets.ts';
import { ASSETS as DOCS_FILES } from '../src/http/routes/docs.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);

/** Node's fuse in its binary, flipped by postject to say "a blob is injected" (fixed by Node). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Asset name → file on disk: everything the code reads by path, which the executable has no folder for. */
function assetFiles(): Map<string, string> {
  const assets = new Map<string, string>();
  assets.set(ADDON_ASSET, require.resolve('better-sqlite3/build/Release/better_sqlite3.node'));
  const migrations = join(ROOT, 'migrations');
  for (const file of filesUnder(migrations)) assets.set(`${MIGRATIONS_ASSET}/${relative(migrations, file)}`, file);
  const swaggerUi = dirname(require.resolve('swagger-ui-dist/package.json'));
  for (const name of Object.keys(DOCS_FILES)) assets.set(`swagger-ui-dist/${name}`, join(swaggerUi, name));
  return assets;
}

/** Names every asset and, by a digest of their contents, the cache folder they are written to. */
function manifestOf(assets: Map<string, string>): AssetManifest {
  const hash = createHash('sha256');
  for (const [name, file] of assets) hash.update(name).update('\0').update(readFileSync(file)).update('\0');
  return { digest: hash.digest('hex').slice(0, 16), files: [...assets.keys()] };
}

export async function buildBinary(outDir = join(ROOT, 'dist')): Promise<string> {
  const work = join(outDir, 'sea');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const bundle = join(work, 'textrelay.cjs');
  await build({
    entryPoints: [join(ROOT, 'src/cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    outfile: bundle,
    logLevel: 'warning',
    // import.meta.url is read only where the code runs from the source tree (the assets' fallbacks),
    // never in the executable, where it is empty.
    logOverride: { 'empty-import-meta': 'silent' },
  });

  const assets = assetFiles();
  const manifestFile = join(work, ASSET_MANIFEST);
  writeFileSync(manifestFile, JSON.stringify(manifestOf(assets)));
  const blob = join(work, 'sea-prep.blob');
  const seaConfig = join(work, 'sea-config.json');
  writeFileSync(
    seaConfig,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's compiled code travels in the blob: start-up skips parsing the 3 MB bundle.
      useCodeCache: true,
      assets: { [ASSET_MANIFEST]: manifestFile, ...Object.fromEntries(assets) },
    }),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });

  const executable = join(outDir, process.platform === 'win32' ? 'textrelay.exe' : 'textrelay');
  rmSync(executable, { force: true });
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  const macOS = process.platform === 'darwin';
  // A copied signature no longer matches once the blob is in: removed, then signed ad hoc again.
  if (macOS) execFileSync('codesign', ['--remove-signature', executable]);
  execFileSync(
    process.execPath,
    [
      require.resolve('postject/dist/cli.js'),
      executable,
      'NODE_SEA_BLOB',
      blob,
      '--sentinel-fuse',
      SEA_FUSE,
      ...(macOS ? ['--macho-segment-name', 'NODE_SEA'] : []),
    ],
    // postject's chatter (and LIEF's warnings about Node's note sections) would bury the result.
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (macOS) execFileSync('codesign', ['--sign', '-', executable]);
  return executable;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const executable = await buildBinary();
  console.log(`Built ${relative(process.cwd(), executable)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
