import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { AttemptOutcome } from '../domain/attempt-outcome.ts';
import type { CarrierHealth } from '../services/carrier-directory.ts';
import { PRUNED_TABLES, type PrunedTable } from '../services/pruning.ts';
import type { GatewayStats } from '../services/stats.ts';

export type DeliveryOutcomeKind = AttemptOutcome['kind'];
export type IngestEndpoint = 'status' | 'receive';

const DELIVERY_OUTCOMES: readonly DeliveryOutcomeKind[] = ['delivered', 'retry', 'failed'];
const INGEST_ENDPOINTS: readonly IngestEndpoint[] = ['status', 'receive'];
export type SignInOutcome = 'signed_in' | 'wrong_credentials' | 'throttled';
const SIGN_IN_OUTCOMES: readonly SignInOutcome[] = ['signed_in', 'wrong_credentials', 'throttled'];
/** From a cached read (about 1 ms) to a request stuck behind a busy database (5 s busy_timeout). */
const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's Prometheus metrics, on a registry of its own (never prom-client's global one: a
 * test process builds many apps). Counters are counted where things happen; the database gauges
 * (messages, outbox) are read by `readStats` at each scrape, so they are true across restarts and
 * across the CLI commands that write to the same file.
 */
export function createMetrics(options: {
  version: string;
  readStats: () => Promise<GatewayStats>;
  /** The configured carriers' health, read at each scrape; none unless given. */
  readCarriers?: () => CarrierHealth[];
}) {
  const registry = new Registry();
  const registers = [registry];

  new Gauge({ name: 'textrelay_build_info', help: 'Always 1; the running version as a label', labelNames: ['version'], registers }).set(
    { version: options.version },
    1,
  );
  const requests = new Counter({
    name: 'textrelay_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'textrelay_http_request_duration_seconds',
    help: 'Time from the request reaching the app to its response being ready, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  /** A counter over a known set of label values: every series exists at zero from the start, so rate() and alerts see it before the first event. */
  function presetCounter(name: string, help: string, label: string, values: readonly string[]) {
    const counter = new Counter({ name, help, labelNames: [label], registers });
    for (const value of values) counter.inc({ [label]: value }, 0);
    return counter;
  }
  const attempts = presetCounter(
    'textrelay_webhook_delivery_attempts_total',
    'Callback POSTs made by the dispatcher, by what became of the delivery: delivered, retry (scheduled again) or failed (given up)',
    'outcome',
    DELIVERY_OUTCOMES,
  );
  const duplicates = presetCounter(
    'textrelay_ingest_duplicates_total',
    'Events posted to /webhooks/* that were already recorded (same webhook-id, or an inbound message already stored) and were dropped',
    'endpoint',
    INGEST_ENDPOINTS,
  );
  const pruned = presetCounter(
    'textrelay_retention_pruned_rows_total',
    'Rows removed by the retention pass, by table (webhook_deliveries counts deliveries, each removed with its attempts)',
    'table',
    PRUNED_TABLES,
  );
  const signIns = presetCounter(
    'textrelay_inbox_sign_ins_total',
    'Inbox sign-in attempts, by outcome: signed_in, wrong_credentials, or throttled (refused with 429 unchecked, during a lock-out)',
    'outcome',
    SIGN_IN_OUTCOMES,
  );

  const messages = new Gauge({
    name: 'textrelay_messages',
    help: 'Messages stored, by current status (RECEIVED: inbound)',
    labelNames: ['status'],
    registers,
  });
  const outbox = new Gauge({
    name: 'textrelay_outbox_deliveries',
    help: 'Callback deliveries not yet delivered, by state: due, retry_wait, held (behind an earlier callback of the same message), delivering, failed (given up)',
    labelNames: ['state'],
    registers,
  });
  const oldestDue = new Gauge({
    name: 'textrelay_outbox_oldest_due_age_seconds',
    help: 'How long the longest-waiting due delivery has been due (0 when none is): the dispatcher falling behind shows here',
    registers,
  });

  const unrouted = new Gauge({
    name: 'textrelay_unrouted_inbound_messages',
    help: 'Inbound messages kept because no account owns the line they arrived on (see textrelay status): a line missing from its account',
    registers,
  });

  const carrierUp = new Gauge({
    name: 'textrelay_carrier_reachable',
    help: "1 when the carrier's last request succeeded, 0 when it failed, absent before the first",
    labelNames: ['carrier'],
    registers,
  });
  // Counters (they only grow while the process lives), copied from the carriers' own counts at each scrape.
  const carrierSends = new Counter({
    name: 'textrelay_carrier_sends_total',
    help: 'Messages the carrier accepted from this process since it started',
    labelNames: ['carrier'],
    registers,
  });
  const carrierEvents = new Counter({
    name: 'textrelay_carrier_events_total',
    help: 'Status events and inbound messages the carrier reported to this process since it started',
    labelNames: ['carrier'],
    registers,
  });
  const carrierLastError = new Gauge({
    name: 'textrelay_carrier_last_error_timestamp_seconds',
    help: "When the carrier's last error happened (its text: textrelay status, lines.getState), absent before the first",
    labelNames: ['carrier'],
    registers,
  });

  let processMetrics = false;

  return {
    /** One answered request; `route` is the matched pattern (`/accounts/contacts/:contact_id`), never the raw path. */
    requestServed(method: string, route: string, status: number, seconds: number): void {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },

    deliveryAttempt(outcome: DeliveryOutcomeKind): void {
      attempts.inc({ outcome });
    },

    ingestDuplicate(endpoint: IngestEndpoint): void {
      duplicates.inc({ endpoint });
    },

    rowsPruned(table: PrunedTable, rows: number): void {
      pruned.inc({ table }, rows);
    },

    inboxSignIn(outcome: SignInOutcome): void {
      signIns.inc({ outcome });
    },

    /**
     * Adds prom-client's process and Node.js metrics (CPU, memory, event loop lag, GC) to this
     * registry. Only the serving process calls it: each call starts an event-loop monitor and a
     * GC observer that live as long as the process, which a test building many apps cannot afford.
     */
    collectProcessMetrics(): void {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },

    /** The exposition text, with the database gauges read now. */
    async render(): Promise<{ contentType: string; body: string }> {
      const stats = await options.readStats();
      for (const [status, count] of Object.entries(stats.messages)) messages.set({ status }, count);
      for (const [state, count] of Object.entries(stats.outbox)) outbox.set({ state }, count);
      oldestDue.set(stats.oldestDueAgeMs / 1000);
      unrouted.set(stats.unroutedInbound);
      carrierSends.reset();
      carrierEvents.reset();
      for (const health of options.readCarriers?.() ?? []) {
        const labels = { carrier: health.carrier };
        if (health.reachable !== null) carrierUp.set(labels, health.reachable ? 1 : 0);
        carrierSends.inc(labels, health.sends);
        carrierEvents.inc(labels, health.events);
        if (health.lastErrorAt !== null) carrierLastError.set(labels, health.lastErrorAt / 1000);
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
