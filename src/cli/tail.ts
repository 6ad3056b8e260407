import { toIso } from '../domain/dates.ts';
import type { EventView } from '../domain/event-views.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { followEvents, startingCursor } from '../services/tail-events.ts';
import { parseTimeFlag } from './time-flag.ts';

export type TailFlags = { since?: string | undefined; json?: boolean | undefined };

/** How often the file is read again: below what a person notices, and a few cheap lookups each time. */
const POLL_MS = 250;

const PREVIEW_CHARS = 60;

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return JSON.stringify(line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}…` : line);
}

/** One line per event for people: time, kind, account, then what happened. */
function eventLine(event: EventView): string {
  if (event.type === 'unrouted') {
    const group = event.group_id === null ? '' : ` in group ${event.group_id}`;
    return `${event.at}  unrouted  -  ${event.from_number} -> ${event.to_number}${group}  ${preview(event.content)}  no account owns ${event.to_number} (from ${event.source})`;
  }
  const head = `${event.at}  ${event.type.padEnd(7)}  ${event.account ?? '-'}  ${event.message_handle}`;
  switch (event.type) {
    case 'status': {
      const error = event.error_code === null ? '' : ` error ${event.error_code}${event.error_message ? ` ${event.error_message}` : ''}`;
      const fate = event.applied ? 'applied' : `not applied: ${event.not_applied_reason ?? 'no reason recorded'}`;
      return `${head}  ${event.status}${error}  ${fate}  (from ${event.source}${event.implied ? ', implied' : ''})`;
    }
    case 'inbound': {
      const media = event.media_url === null ? '' : ` + ${event.media_url}`;
      const group = event.group_id === null ? '' : ` in group ${event.group_id}`;
      return `${head}  ${event.from_number} -> ${event.to_number}${group}  ${preview(event.content)}${media}`;
    }
    case 'webhook': {
      const answer = event.status_code === null ? (event.error ?? 'no answer') : `HTTP ${event.status_code}`;
      return `${head}  ${event.event_type} ${event.webhook_id} -> ${event.url}  ${answer} in ${event.duration_ms} ms, attempt ${event.attempt}: ${event.outcome}`;
    }
  }
}

/**
 * `textrelay tail`: prints events as the server writes them to the database file, until Ctrl-C
 * (or SIGTERM, or the reader of stdout going away). The ready line goes to stderr, so stdout
 * carries events only.
 */
export async function tailCommand(
  { deps, databaseName, close }: { deps: ServiceDeps; databaseName: string; close(): Promise<void> },
  flags: TailFlags,
): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  // `textrelay tail | head`: a closed pipe ends the tail instead of crashing it.
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', onStdoutError);
  try {
    const since = flags.since === undefined ? undefined : parseTimeFlag('--since', flags.since, deps.clock.now());
    const from = await startingCursor(deps, since);
    process.stderr.write(`Following ${databaseName}${since === undefined ? '' : ` since ${toIso(since)}`} (Ctrl-C stops)\n`);
    await followEvents(deps, {
      from,
      pollMs: POLL_MS,
      signal: stop.signal,
      onEvent: (event) => {
        if (!stop.signal.aborted) process.stdout.write(`${flags.json ? JSON.stringify(event) : eventLine(event)}\n`);
      },
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stdout.off('error', onStdoutError);
    await close();
  }
}
