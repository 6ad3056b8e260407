import type { AppDeps } from '../app.ts';
import { parseListingDate } from '../domain/dates.ts';
import type { DeliveryView } from '../domain/delivery-views.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from '../services/app-error.ts';
import { listAllDeliveries, replayDelivery, replayFailedSince } from '../services/webhook-deliveries.ts';

export const WEBHOOKS_USAGE = `textrelay webhooks list [--failed] [--limit N] [--db FILE] [--json]
  textrelay webhooks replay --id WEBHOOK_ID | --failed-since TIME [--db FILE] [--json]`;

export type WebhooksFlags = {
  failed?: boolean | undefined;
  limit?: string | undefined;
  id?: string | undefined;
  'failed-since'?: string | undefined;
};

/** What a webhooks command answers: the value for --json, and the lines for people. */
export type CommandOutput = { value: unknown; human: string };

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** `--failed-since`: ISO 8601 (a date alone is midnight UTC; a time needs Z or an offset), or the API's "YYYY-MM-DD HH:MM:SS" UTC. */
export function parseSince(raw: string): number {
  const listing = parseListingDate(raw);
  if (listing !== null) return listing;
  const at = ISO_DATE_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new AppError(ErrorCode.validation, `--failed-since must be a time such as 2026-11-23T09:00:00Z or "2026-11-23 09:00:00" (UTC), not ${raw}`);
  }
  return at;
}

function deliveryLine(delivery: DeliveryView): string {
  const last = delivery.last_status_code ?? delivery.last_error ?? '-';
  return [delivery.id, delivery.state, `attempts=${delivery.attempt_count}`, `last=${last}`, delivery.created_at, delivery.url].join('\t');
}

/** `textrelay webhooks list|replay`: the operator's view of every account's deliveries. */
export function webhooksCommand(deps: AppDeps, action: string | undefined, flags: WebhooksFlags): CommandOutput {
  switch (action) {
    case 'list': {
      const limit = flags.limit === undefined ? 100 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new AppError(ErrorCode.validation, '--limit must be a positive integer');
      const deliveries = listAllDeliveries(deps, { state: flags.failed ? 'failed' : undefined, limit, offset: 0 });
      const human = deliveries.length === 0 ? (flags.failed ? 'No failed deliveries.' : 'No deliveries.') : deliveries.map(deliveryLine).join('\n');
      return { value: deliveries, human };
    }
    case 'replay': {
      const since = flags['failed-since'];
      if ((flags.id === undefined) === (since === undefined)) {
        throw new AppError(ErrorCode.validation, 'webhooks replay takes exactly one of --id WEBHOOK_ID or --failed-since TIME');
      }
      const replayed = flags.id !== undefined ? [replayDelivery(deps, flags.id).id] : replayFailedSince(deps, parseSince(since!));
      const human = replayed.length === 0 ? 'Nothing to replay.' : `Queued again (the running server sends them within a second):\n${replayed.join('\n')}`;
      return { value: { replayed }, human };
    }
    default:
      throw new AppError(ErrorCode.validation, `Unknown webhooks command: ${action ?? '(none)'} (list or replay)`);
  }
}
