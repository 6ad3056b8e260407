import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type * as schema from './schema.ts';

/** A PostgreSQL database through drizzle and postgres.js: the pool, or one transaction of it. */
export type PgDb = PostgresJsDatabase<typeof schema>;
