/**
 * Hooks every test file needs, registered from the setup file because the test workers share
 * modules between files (`isolate: false`): a hook registered at a shared module's top level would
 * run for the first file that imported it only.
 */
import { afterAll, afterEach } from 'vitest';
import { runCleanups } from './cleanups.ts';
import { closeEveryPostgresDatabase } from './postgres-database.ts';

afterEach(runCleanups);
afterAll(closeEveryPostgresDatabase);
