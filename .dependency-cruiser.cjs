/** The layering of docs/architecture.md, checked by `npm run lint:layers`. */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes load order matter and layers meaningless.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ holds pure rules: it imports only domain/ and pure libraries, never I/O or a framework.',
      from: { path: '^src/domain/' },
      to: {
        pathNot: ['^src/domain/', '^node_modules/(libphonenumber-js|ipaddr[.]js|zod)/'],
      },
    },
    {
      name: 'http-not-db',
      severity: 'error',
      comment: 'Routes reach the data through services, never the store or the schema.',
      from: { path: '^src/http/' },
      to: { path: '^src/db/' },
    },
    {
      name: 'services-not-http',
      severity: 'error',
      comment: 'Services are used by http, the CLI, transports and the dispatcher: they must not know HTTP.',
      from: { path: '^src/services/' },
      to: { path: '^src/(http|cli|transports|callbacks)/|^src/(app|cli|server|runtime)\\.ts$' },
    },
    {
      name: 'backend-unknown-above-the-store',
      comment:
        "Services, routes, transports, the dispatcher and the CLI commands hold a Store: which database answers it is the runtime's to know.",
      severity: 'error',
      from: { path: '^src/(services|http|callbacks|transports|cli)/' },
      to: { path: '^src/db/(sqlite|postgres)/' },
    },
    {
      name: 'db-is-the-only-sql',
      severity: 'error',
      comment: 'Only db/ talks to the database driver and the query builder.',
      from: { pathNot: '^src/db/' },
      to: { path: '^node_modules/(drizzle-orm|better-sqlite3|postgres)/' },
    },
    {
      name: 'cli-talks-to-services',
      severity: 'error',
      comment: 'CLI commands call services, never HTTP routes or their helpers.',
      from: { path: '^src/cli/' },
      to: { path: '^src/http/|^src/app\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
