import { toIso } from '../domain/dates.ts';
import type { DeliveryView } from '../domain/delivery-views.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from '../services/app-error.ts';
import { listAllDeliveries, pruneDeliveries, replayDelivery, replayFailedSince } from '../services/callback-deliveries.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { type ProgressStream, progressLine } from './progress.ts';
import { parseTimeFlag } from './time-flag.ts';
import { UsageError } from './usage-error.ts';

export type WebhooksFlags = {
  failed?: boolean | undefined;
  limit?: string | undefined;
  id?: string | undefined;
  'failed-since'?: string | undefined;
  before?: string | undefined;
};

/** What a webhooks command answers: the value for --json, and the lines for people. */
export type CommandOutput = { value: unknown; human: string };

function deliveryLine(delivery: DeliveryView): string {
  const last = delivery.last_status_code ?? delivery.last_error ?? '-';
  const state = delivery.state === 'held' ? `held behind ${delivery.held_behind ?? '-'}` : delivery.state;
  return [delivery.id, state, `attempts=${delivery.attempt_count}`, `last=${last}`, delivery.created_at, delivery.url].join('\t');
}

/** Replays every delivery given up since the flag's time, with progress and a summary on `progress`. */
async function replaySince(deps: ServiceDeps, raw: string, progress: ProgressStream): Promise<string[]> {
  const since = parseTimeFlag('--failed-since', raw, deps.clock.now());
  const line = progressLine(progress, 'Replaying failed deliveries:');
  const replayed = await replayFailedSince(deps, since, undefined, line.update);
  line.finish(`Replayed ${replayed.length} ${replayed.length === 1 ? 'delivery' : 'deliveries'} given up since ${toIso(since)}.`);
  return replayed;
}

/** Forgets the deliveries finished before the flag's time, in batches a running server's writes wait for one at a time. */
async function pruneBefore(deps: ServiceDeps, raw: string | undefined): Promise<CommandOutput> {
  if (raw === undefined) throw new UsageError('webhooks prune needs --before TIME (e.g. 30d)', 'webhooks');
  const before = parseTimeFlag('--before', raw, deps.clock.now());
  let pruned = 0;
  for await (const forgotten of pruneDeliveries(deps, before)) pruned += forgotten;
  const human = `Deleted ${pruned} ${pruned === 1 ? 'delivery' : 'deliveries'} delivered or given up before ${toIso(before)}, with their attempts.`;
  return { value: { pruned, before: toIso(before) }, human };
}

/**
 * `textrelay webhooks list|replay|prune`: the operator's view of every account's deliveries. A replay
 * of many reports its progress on `progress` (stderr), so stdout keeps only the answer.
 */
export async function webhooksCommand(
  deps: ServiceDeps,
  action: string | undefined,
  flags: WebhooksFlags,
  progress: ProgressStream,
): Promise<CommandOutput> {
  switch (action) {
    case 'list': {
      const limit = flags.limit === undefined ? 100 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new AppError(ErrorCode.validation, '--limit must be a positive integer');
      const deliveries = await listAllDeliveries(deps, { state: flags.failed ? 'failed' : undefined, limit, offset: 0 });
      const human =
        deliveries.length === 0 ? (flags.failed ? 'No failed deliveries.' : 'No deliveries.') : deliveries.map(deliveryLine).join('\n');
      return { value: deliveries, human };
    }
    case 'replay': {
      const since = flags['failed-since'];
      if ((flags.id === undefined) === (since === undefined)) {
        throw new UsageError('webhooks replay takes exactly one of --id WEBHOOK_ID or --failed-since TIME', 'webhooks');
      }
      const one = flags.id === undefined ? undefined : await replayDelivery(deps, flags.id);
      if (one?.state === 'held') {
        const human = `${one.id} is held behind ${one.held_behind ?? 'an earlier delivery'} of the same message and URL: it goes once that one is delivered or given up.`;
        return { value: { replayed: [], held_behind: one.held_behind }, human };
      }
      const replayed = one !== undefined ? [one.id] : await replaySince(deps, since!, progress);
      const human =
        replayed.length === 0
          ? 'Nothing to replay.'
          : `Queued again (the running server sends them within a second):\n${replayed.join('\n')}`;
      return { value: { replayed }, human };
    }
    case 'prune':
      return pruneBefore(deps, flags.before);
    default:
      throw new UsageError(`Unknown webhooks command: ${action ?? '(none)'} (list, replay or prune)`, 'webhooks');
  }
}
