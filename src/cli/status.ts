import { toIso } from '../domain/dates.ts';
import { type CarrierProblem, carrierProblems } from '../services/carrier-problems.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { offlineLines } from '../services/line-carriers.ts';
import {
  FAILING_WINDOW_MS,
  type FailingDestination,
  getGatewayStats,
  latestUnroutedInbound,
  listFailingDestinations,
  type UnroutedInbound,
} from '../services/stats.ts';
import type { Carrier } from '../transports/carriers/carrier.ts';
import { carrierLines, carrierStatuses, carrierValues } from './carrier-status.ts';
import type { CommandOutput } from './webhooks.ts';

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** How many of the latest unrouted inbound messages the status shows. */
const UNROUTED_SHOWN = 5;

function unroutedLine(message: UnroutedInbound): string {
  return `  ${toIso(message.receivedAt)}  ${message.fromNumber} -> ${message.toNumber}${message.transportGroupId ? ` in group ${message.transportGroupId}` : ''}  (from ${message.source})`;
}

/** How many of the latest carrier item problems the status shows. */
const PROBLEMS_SHOWN = 10;

function problemLine(problem: CarrierProblem & { carrier: string }): string {
  return `  ${toIso(problem.at)}  ${problem.carrier}  ${problem.what}`;
}

function destinationLine(destination: FailingDestination): string {
  const last = destination.lastStatusCode !== null ? `HTTP ${destination.lastStatusCode}` : (destination.lastError ?? 'no answer');
  return `  ${destination.host}\t${destination.retrying} retrying, ${destination.givenUp} given up\tlast failure ${toIso(destination.lastFailureAt)}: ${last}`;
}

/**
 * `textrelay status`: what the gateway holds right now, read from the database file, so it works
 * beside a running server or without one. The same figures as /metrics, plus the failing hosts,
 * and each configured carrier (probed now, with what the serve process counted).
 */
export async function statusCommand(
  deps: Pick<ServiceDeps, 'store' | 'clock' | 'carriers'>,
  carriers: readonly Carrier[] = [],
): Promise<CommandOutput> {
  const carried = await carrierStatuses(deps, carriers);
  // After the probes: a Twilio probe finds the lines its account no longer holds.
  const offline = await offlineLines(deps);
  const stats = await getGatewayStats(deps);
  const failing = await listFailingDestinations(deps);
  const unrouted = await latestUnroutedInbound(deps, UNROUTED_SHOWN);
  const problems = await carrierProblems(deps);
  const { outbox } = stats;
  const waiting = outbox.due + outbox.retry_wait + outbox.held;
  const human = [
    'Messages by status:',
    ...Object.entries(stats.messages).map(([status, count]) => `  ${status.padEnd(10)}${count}`),
    '',
    `Webhook outbox: ${waiting} waiting, ${outbox.delivering} being delivered, ${outbox.failed} given up`,
    `  due now:         ${outbox.due}${outbox.due > 0 ? ` (the oldest due for ${duration(stats.oldestDueAgeMs)})` : ''}`,
    `  waiting a retry: ${outbox.retry_wait}`,
    `  held in order:   ${outbox.held} (behind an earlier callback of the same message)`,
    '',
    failing.length === 0
      ? `No failing webhook destinations (none retrying, none given up in the last ${duration(FAILING_WINDOW_MS)}).`
      : `Failing webhook destinations (retrying now, or given up in the last ${duration(FAILING_WINDOW_MS)}):\n${failing.map(destinationLine).join('\n')}`,
    '',
    stats.unroutedInbound === 0
      ? 'No unrouted inbound messages.'
      : `Unrouted inbound messages (no account owns the line; add it with textrelay accounts lines add): ${stats.unroutedInbound}, the latest:\n${unrouted.map(unroutedLine).join('\n')}`,
    ...carrierLines(carried),
    ...(problems.length === 0
      ? []
      : ['', `Carrier items not recorded in full (the latest ${PROBLEMS_SHOWN}):`, ...problems.slice(0, PROBLEMS_SHOWN).map(problemLine)]),
    ...(offline.length === 0
      ? []
      : ['', 'Lines not served (OFFLINE):', ...offline.map((line) => `  ${line.number}\t${line.email}\t${line.reason}`)]),
  ].join('\n');
  const value = {
    messages: stats.messages,
    outbox: { ...outbox, oldest_due_age_seconds: stats.oldestDueAgeMs / 1000 },
    failing_destinations: failing.map((destination) => ({
      host: destination.host,
      retrying: destination.retrying,
      given_up: destination.givenUp,
      last_failure_at: toIso(destination.lastFailureAt),
      last_status_code: destination.lastStatusCode,
      last_error: destination.lastError,
    })),
    unrouted_inbound: {
      total: stats.unroutedInbound,
      latest: unrouted.map((message) => ({
        received_at: toIso(message.receivedAt),
        from_number: message.fromNumber,
        to_number: message.toNumber,
        group_id: message.transportGroupId,
        content: message.content,
        media_url: message.mediaUrl === '' ? null : message.mediaUrl,
        source: message.source,
      })),
    },
    carriers: carrierValues(carried),
    carrier_problems: problems.map((problem) => ({
      at: toIso(problem.at),
      carrier: problem.carrier,
      item: problem.item,
      account_id: problem.accountId,
      what: problem.what,
    })),
    offline_lines: offline.map((line) => ({ number: line.number, email: line.email, carrier: line.carrier, reason: line.reason })),
  };
  return { value, human };
}
