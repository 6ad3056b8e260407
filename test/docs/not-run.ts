/**
 * The code blocks of the docs that test/docs/code-blocks.test.ts does not run, each with why: a
 * doc and a short text only that block of the doc contains. A new block that is neither here nor
 * runnable by the rule of fenced-blocks.ts fails the test, so its writer decides.
 */
export type NotRun = { doc: string; contains: string; because: string };

const OUTPUT = 'what a command prints or the API answers, shown to be read';
const SYNOPSIS = "a command's usage synopsis, its placeholders in capitals";
const DIAGRAM = 'a diagram';
const MAC = 'needs a Mac running BlueBubbles (test/transports/bluebubbles runs it against the fake)';
const TWILIO = 'needs a Twilio account and a public URL (test/transports/twilio runs it against the fake)';
const PHONE = 'needs an Android phone running SMS Gateway (test/transports/smsgate runs it against the fake)';
const POSTGRES = 'needs a PostgreSQL server of your own';
const CONTAINER = 'builds or runs the container image (.ci/container-check does)';
const PRODUCTION = 'installs or builds in place, which a test must not do to the checkout (.ci/production-install does)';

export const NOT_RUN: NotRun[] = [
  { doc: 'README.md', contains: 'npm install && npm test', because: 'runs the whole test suite, this test included' },
  { doc: 'README.md', contains: 'Created a development account', because: OUTPUT },
  { doc: 'docs/architecture.md', contains: 'the only place with SQL', because: DIAGRAM },
  { doc: 'docs/architecture.md', contains: 'sandbox timers / POST /webhooks/*', because: DIAGRAM },
  { doc: 'docs/binary.md', contains: 'npm run build:binary', because: 'builds a 105 MB executable and installs it in /usr/local/bin' },
  { doc: 'docs/carriers.md', contains: 'TEXTRELAY_TRANSPORT=twilio', because: TWILIO },
  { doc: 'docs/carriers.md', contains: 'TEXTRELAY_TRANSPORT=bluebubbles', because: MAC },
  { doc: 'docs/carriers.md', contains: 'TEXTRELAY_TRANSPORT=smsgate', because: PHONE },
  { doc: 'docs/cli.md', contains: 'textrelay --help ', because: SYNOPSIS },
  { doc: 'docs/cli.md', contains: 'textrelay healthcheck [--port N]', because: SYNOPSIS },
  { doc: 'docs/cli.md', contains: 'textrelay accounts upstream set --email E', because: SYNOPSIS },
  { doc: 'docs/cli.md', contains: 'textrelay accounts lines list --email E', because: SYNOPSIS },
  { doc: 'docs/cli.md', contains: 'textrelay tail [--since TIME]', because: SYNOPSIS },
  { doc: 'docs/cli.md', contains: '"echo: ping"', because: OUTPUT },
  { doc: 'docs/delivery.md', contains: 'POST /api/send-message ──►', because: DIAGRAM },
  {
    doc: 'docs/delivery.md',
    contains: 'TEXTRELAY_TRANSPORT=upstream',
    because: 'needs an upstream provider account and a public URL (test/sdk/relay.test.ts runs relay mode against a fake)',
  },
  {
    doc: 'docs/delivery.md',
    contains: '--upstream-secret-file shop.secret',
    because: "needs a provider's key and its secret in a file (test/cli covers the commands)",
  },
  { doc: 'docs/deployment.md', contains: 'npm ci --omit=dev', because: PRODUCTION },
  { doc: 'docs/deployment.md', contains: 'CREATE ROLE textrelay LOGIN', because: POSTGRES },
  { doc: 'docs/deployment.md', contains: 'the server refused the password', because: OUTPUT },
  { doc: 'docs/deployment.md', contains: 'upstream textrelay {', because: 'an nginx configuration' },
  { doc: 'docs/deployment.md', contains: 'reverse_proxy 10.0.0.11:3000', because: 'a Caddy configuration' },
  { doc: 'docs/deployment.md', contains: '"database available again"', because: OUTPUT },
  { doc: 'docs/deployment.md', contains: 'textrelay migrate-data --from', because: `${POSTGRES}, and systemd` },
  { doc: 'docs/deployment.md', contains: 'podman build', because: CONTAINER },
  { doc: 'docs/deployment.md', contains: 'install -d -o 10001', because: CONTAINER },
  { doc: 'docs/deployment.md', contains: 'podman secret create upstream_secret', because: CONTAINER },
  { doc: 'docs/deployment.md', contains: 'podman secret create smsgate_password', because: `${CONTAINER}, and an Android phone` },
  { doc: 'docs/deployment.md', contains: 'podman volume inspect', because: CONTAINER },
  { doc: 'docs/development.md', contains: 'npm run typecheck', because: 'the checks CI runs, the whole test suite among them' },
  { doc: 'docs/events.md', contains: 'id: 42', because: OUTPUT },
  { doc: 'docs/events.md', contains: 'event: error', because: OUTPUT },
  { doc: 'docs/media-groups-typing.md', contains: '"Media object uploaded"', because: OUTPUT },
  { doc: 'docs/operations.md', contains: 'scrape_configs:', because: 'a Prometheus configuration' },
  { doc: 'docs/operations.md', contains: 'textrelay_outbox_oldest_due_age_seconds > 60', because: 'Prometheus queries' },
  { doc: 'docs/operations.md', contains: '"requestId": "req_', because: OUTPUT },
  { doc: 'docs/operations.md', contains: 'Messages by status:', because: OUTPUT },
  { doc: 'docs/operations.md', contains: 'Carriers (reachable:', because: OUTPUT },
  { doc: 'docs/operations.md', contains: '"failing_destinations"', because: OUTPUT },
  { doc: 'docs/performance.md', contains: 'npm run bench', because: 'benchmarks that run for minutes' },
  {
    doc: 'docs/sandbox.md',
    contains: '"media_url": "https://cdn.example.com/a.jpg"',
    because: 'a request body, its fields explained beside it',
  },
  { doc: 'docs/webhooks.md', contains: '"content": "hello"', because: OUTPUT },
  { doc: 'docs/webhooks.md', contains: '"content": "see you there"', because: OUTPUT },
  {
    doc: 'docs/webhooks.md',
    contains: 'npm install express standardwebhooks',
    because: 'installs packages from the registry into your own project',
  },
  {
    doc: 'docs/webhooks.md',
    contains: "import express from 'express'",
    because: 'a receiver of your own: needs express and standardwebhooks installed',
  },
  { doc: 'docs/webhooks.md', contains: 'status_callback is refused', because: OUTPUT },
  { doc: 'docs/webhooks.md', contains: 'refused by the outbound address policy', because: OUTPUT },
];
