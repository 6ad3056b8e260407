import { defineConfig } from 'vitest/config';

/**
 * The API behaviour tests that reach the database only through HTTP, the services and the
 * helpers that read both backends (outbox rows, rowCounts, writeCounter), run a second time on
 * PostgreSQL. Tests that reach SQLite under the store (t.db, t.queries, t.commits), spawn
 * processes, fake the timers a network driver needs (test/sandbox/timer) or run thousands of
 * generated requests (fuzz, robustness, ingest-payloads) stay on SQLite only; crash-batches spawns
 * its servers on the backend of the project that runs it.
 */
const BACKEND_AGNOSTIC = [
  'test/http/contacts-v2-sdk.test.ts',
  'test/http/events-stream.test.ts',
  'test/http/groups-v2.test.ts',
  'test/http/listing-bounds.test.ts',
  'test/db/listing-json-sql.property.test.ts',
  'test/db/whole-writes-many.test.ts',
  'test/db/hot-statements-many.test.ts',
  'test/http/lookup-lines.test.ts',
  'test/http/media.test.ts',
  'test/http/media-types.test.ts',
  'test/http/modify-group.test.ts',
  'test/http/nul-characters.test.ts',
  'test/http/openapi.test.ts',
  'test/http/out-of-scope.test.ts',
  'test/http/quotas.test.ts',
  'test/http/send-extras.test.ts',
  'test/http/send-group-message.test.ts',
  'test/http/send-message.test.ts',
  'test/http/status.test.ts',
  'test/http/write-limits.test.ts',
  'test/transports/carriers/foundation.test.ts',
  'test/transports/carriers/health.test.ts',
  'test/transports/carriers/lines.test.ts',
  'test/transports/handover-fairness.test.ts',
  'test/transports/twilio/twilio.test.ts',
  'test/transports/twilio/readback.test.ts',
  'test/transports/smsgate/settings.test.ts',
  'test/transports/smsgate/health.test.ts',
  'test/transports/smsgate/smsgate.test.ts',
  'test/transports/smsgate/readback.test.ts',
  'test/callbacks/api.test.ts',
  'test/callbacks/account-fairness.test.ts',
  'test/callbacks/account-webhooks-v2.test.ts',
  'test/callbacks/dispatcher.test.ts',
  'test/callbacks/outbound-webhook.test.ts',
  'test/callbacks/ssrf.test.ts',
  'test/callbacks/wake-on-work.test.ts',
  'test/delivery/ingest-auth.test.ts',
  'test/delivery/ingest-receive.test.ts',
  'test/delivery/ingest-status.test.ts',
  'test/delivery/ingest-twice.test.ts',
  'test/delivery/batch-isolation.test.ts',
  'test/delivery/relay-inbound-limits.test.ts',
  'test/delivery/upstream.test.ts',
  'test/delivery/upstream-shared.test.ts',
  'test/delivery/upstream-tenants.test.ts',
  'test/sandbox/echo-typing.test.ts',
  'test/sandbox/echo.test.ts',
  'test/sandbox/group-lines.test.ts',
  'test/sandbox/inbound-route.test.ts',
  'test/sandbox/inline-handover.test.ts',
  'test/sandbox/timelines.test.ts',
  'test/services/record-status.test.ts',
  'test/services/transport-at-send.test.ts',
  'test/services/record-status.property.test.ts',
  'test/services/receive-inbound.test.ts',
  'test/services/validation-messages.test.ts',
  'test/security/auth-matrix.test.ts',
  'test/security/carriers-cross.test.ts',
  'test/security/lookups.test.ts',
  'test/security/secrets-in-logs.test.ts',
  'test/sdk/doc-snippets.test.ts',
  'test/transports/bluebubbles/carrier.test.ts',
  'test/transports/bluebubbles/nul-characters.test.ts',
  'test/transports/bluebubbles/private-api.test.ts',
  'test/transports/bluebubbles/sdk.test.ts',
  'test/transports/bluebubbles/no-poison.test.ts',
  'test/transports/bluebubbles/send-readings.test.ts',
  'test/robustness/crash-batches.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/browser/skipped-reporter.ts'],
    // One PostgreSQL for the whole run, for test/db/postgres and the postgres project.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    // Test files share one module graph per worker: importing the app anew for each file took
    // more of the run than the tests. Hooks every file needs are registered per file here.
    isolate: false,
    setupFiles: ['test/helpers/per-file-hooks.ts'],
    // Vitest's default is one worker per core but one, a single worker on 2 cores: the many tests
    // that wait on a child process, a socket or a timer then leave both cores idle.
    maxWorkers: 2,
    // CLI tests spawn real processes; the default 5 s is too tight on a loaded 2-core CI box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'postgres', include: BACKEND_AGNOSTIC, env: { TEXTRELAY_TEST_BACKEND: 'postgres' } },
      },
    ],
  },
});
