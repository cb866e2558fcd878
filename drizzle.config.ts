import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes SQL migrations from server/db/schema.ts; the server applies them at start
// (server/db/migrate.ts) on PGlite and PostgreSQL alike.
export default defineConfig({
    dialect: 'postgresql',
    schema: './server/db/schema.ts',
    out: './server/db/migrations',
});
