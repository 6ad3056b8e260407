import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executableAsset } from '../executable-assets.ts';

/** What the database layer needs beside JavaScript: the migrations, and the SQLite addon. */
export type DatabaseFiles = {
  migrationsFolder: string;
  /** The loaded better-sqlite3 addon; undefined lets better-sqlite3 find its own in node_modules. */
  nativeBinding: object | undefined;
};

/** The names under which scripts/build-binary.ts stores them in the single executable. */
export const MIGRATIONS_ASSET = 'migrations';
export const ADDON_ASSET = 'better_sqlite3.node';

function loadAddon(file: string): object {
  const addon = { exports: {} };
  process.dlopen(addon, file);
  return addon.exports;
}

function locate(): DatabaseFiles {
  const addon = executableAsset(ADDON_ASSET);
  if (addon !== undefined) return { migrationsFolder: executableAsset(MIGRATIONS_ASSET)!, nativeBinding: loadAddon(addon) };
  return { migrationsFolder: resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations'), nativeBinding: undefined };
}

let located: DatabaseFiles | undefined;

/** Located on first use, once per process: the executable loads its addon once. */
export function databaseFiles(): DatabaseFiles {
  located ??= locate();
  return located;
}
