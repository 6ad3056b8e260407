import { CARRIERS } from '../domain/carriers.ts';
import { toIso } from '../domain/dates.ts';
import type { CarrierHealth } from '../services/carrier-directory.ts';
import { lastCarrierHealthReport } from '../services/carrier-health.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { Carrier } from '../transports/carriers/carrier.ts';

/** What `textrelay status` shows of one carrier. */
export type CarrierStatus = {
  carrier: string;
  /** False when this shell configures no carrier: everything shown is the serving process's last report. */
  probed: boolean;
  /** This command's own probe, made now (else the serving process's last report): null when unknown. */
  reachable: boolean | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Counted by the serving process since it started; null when no serve process reported yet. */
  sends: number | null;
  events: number | null;
  reportedAt: number | null;
};

/** A probe that does not answer within this is shown as unknown rather than holding the command. */
const PROBE_LIMIT_MS = 10_000;

async function probed(carrier: Carrier): Promise<CarrierHealth> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, PROBE_LIMIT_MS);
  });
  await Promise.race([carrier.probe(), limit]);
  clearTimeout(timer);
  return carrier.health();
}

/**
 * Each configured carrier: whether it answers now (this command probes it with one cheap request),
 * its last error (the probe's, else the serving process's), and the sends and events the serving
 * process counted. Stops the carriers' clients afterwards.
 */
export async function carrierStatuses(deps: Pick<ServiceDeps, 'store'>, carriers: readonly Carrier[]): Promise<CarrierStatus[]> {
  if (carriers.length === 0) return reportedStatuses(deps);
  try {
    return await Promise.all(
      carriers.map(async (carrier) => {
        const now = await probed(carrier);
        const report = await lastCarrierHealthReport(deps, carrier.name);
        const ownError = now.reachable === false;
        return {
          carrier: carrier.name,
          probed: true,
          reachable: now.reachable,
          lastError: ownError ? now.lastError : (report?.lastError ?? null),
          lastErrorAt: ownError ? now.lastErrorAt : (report?.lastErrorAt ?? null),
          sends: report?.sends ?? null,
          events: report?.events ?? null,
          reportedAt: report?.reportedAt ?? null,
        };
      }),
    );
  } finally {
    await Promise.all(carriers.map((carrier) => carrier.stop()));
  }
}

/**
 * Run without the server's settings (no carrier configured here), status still shows the carriers
 * the database knows of: those the serving process reported on, and those lines are bound to.
 */
async function reportedStatuses(deps: Pick<ServiceDeps, 'store'>): Promise<CarrierStatus[]> {
  const bound = new Set((await deps.store.lines.all()).map((line) => line.carrier).filter((carrier) => carrier !== null));
  const statuses: CarrierStatus[] = [];
  for (const carrier of CARRIERS) {
    const report = await lastCarrierHealthReport(deps, carrier);
    if (report === undefined && !bound.has(carrier)) continue;
    statuses.push({
      carrier,
      probed: false,
      reachable: report?.reachable ?? null,
      lastError: report?.lastError ?? null,
      lastErrorAt: report?.lastErrorAt ?? null,
      sends: report?.sends ?? null,
      events: report?.events ?? null,
      reportedAt: report?.reportedAt ?? null,
    });
  }
  return statuses;
}

function reachability(status: CarrierStatus): string {
  if (!status.probed) {
    if (status.reachable === null) return 'reachability not reported';
    return `${status.reachable ? 'reachable' : 'NOT reachable'} when last reported`;
  }
  if (status.reachable === null) return 'reachability unknown (no answer in time)';
  return status.reachable ? 'reachable' : 'NOT reachable';
}

const PROBED_HEADING = 'Carriers (reachable: probed now; sends and events: counted by the serve process since it started):';
const REPORTED_HEADING =
  "Carriers (TEXTRELAY_TRANSPORT here configures none, so none is probed: the serving process's last report; " +
  "run status with the server's settings to probe them):";

/** The human lines of the carriers' block. */
export function carrierLines(statuses: readonly CarrierStatus[]): string[] {
  if (statuses.length === 0) return [];
  const lines = [statuses.some((status) => status.probed) ? PROBED_HEADING : REPORTED_HEADING];
  for (const status of statuses) {
    const counts =
      status.reportedAt === null
        ? 'no serve process has reported yet'
        : `sends ${status.sends}, events ${status.events} (reported ${toIso(status.reportedAt)})`;
    lines.push(`  ${status.carrier.padEnd(13)}${reachability(status)}, ${counts}`);
    if (status.lastError !== null)
      lines.push(`    last error${status.lastErrorAt === null ? '' : ` ${toIso(status.lastErrorAt)}`}: ${status.lastError}`);
  }
  return ['', ...lines];
}

/** The `--json` form of the carriers' block. */
export function carrierValues(statuses: readonly CarrierStatus[]) {
  return statuses.map((status) => ({
    carrier: status.carrier,
    probed: status.probed,
    reachable: status.reachable,
    last_error: status.lastError,
    last_error_at: status.lastErrorAt === null ? null : toIso(status.lastErrorAt),
    sends: status.sends,
    events: status.events,
    reported_at: status.reportedAt === null ? null : toIso(status.reportedAt),
  }));
}
