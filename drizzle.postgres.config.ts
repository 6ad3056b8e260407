import { defineConfig } from 'drizzle-kit';

/** The PostgreSQL backend's migrations, beside SQLite's (drizzle.config.ts): `npx drizzle-kit generate --config drizzle.postgres.config.ts`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/postgres/schema.ts',
  out: './migrations/postgres',
  casing: 'snake_case',
});
