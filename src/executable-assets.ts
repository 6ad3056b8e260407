import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as sea from 'node:sea';

/**
 * The files the single executable (scripts/build-binary.ts) carries beside its JavaScript: the
 * SQLite addon, the migrations, the /docs viewer. From source they are read where they sit in the
 * repository and node_modules; the executable writes its copies once per build to a cache folder,
 * since an addon can only be loaded from a file and the code reads the others by path.
 */

/** The asset listing the others, written by the build: node:sea cannot list assets before Node 24. */
export const ASSET_MANIFEST = 'manifest.json';

/** `files` are asset names, which are also their paths under the extracted folder. */
export type AssetManifest = { digest: string; files: string[] };

function cacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'textrelay');
}

/**
 * Writes the assets under a folder named by their digest, so a new build never reuses an old
 * addon. Written aside and renamed into place: a process that finds the folder finds it whole,
 * and of two processes starting at once, the loser uses the winner's folder.
 */
function extract(): string {
  const manifest = JSON.parse(sea.getAsset(ASSET_MANIFEST, 'utf8')) as AssetManifest;
  const folder = join(cacheRoot(), manifest.digest);
  if (existsSync(folder)) return folder;
  const staging = `${folder}.${process.pid}.partial`;
  for (const name of manifest.files) {
    const target = join(staging, name);
    mkdirSync(dirname(target), { recursive: true });
    // Raw: a view of the executable's own memory, written without a copy.
    writeFileSync(target, new Uint8Array(sea.getRawAsset(name) as ArrayBuffer));
  }
  try {
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(folder)) throw error;
  }
  return folder;
}

let extracted: string | undefined;

/** Where the executable's asset `name` is on disk (extracted on first call); undefined when running from source. */
export function executableAsset(name: string): string | undefined {
  if (!sea.isSea()) return undefined;
  extracted ??= extract();
  return join(extracted, name);
}
