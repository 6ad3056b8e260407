import type { ClaimedDelivery, FinishedDelivery } from '../db/store.ts';
import { outcomeOf } from '../domain/attempt-outcome.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { createGuardedAgent } from '../outbound/guarded-client.ts';
import { finishedDelivery, signingSecretOf } from '../services/callback-dispatch.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { VERSION } from '../version.ts';
import type { DispatcherSettings } from './dispatcher-options.ts';
import { type PostResult, postWebhook } from './post.ts';
import { signatureHeaders } from './signing.ts';

/** One attempt at a claimed callback: signs it, posts it and says what follows, through a keep-alive pool. */
export function createPoster(deps: ServiceDeps & { metrics: Pick<Metrics, 'deliveryAttempt'> }, settings: DispatcherSettings) {
  const userAgent = `textrelay/${VERSION}`;
  const agent = createGuardedAgent(settings.outboundPolicy, { keepAliveTimeout: 30_000, connections: settings.perHostConcurrency });

  function finished(row: ClaimedDelivery, post: PostResult, attemptedAt: number): FinishedDelivery {
    const outcome = outcomeOf(post, row.attemptCount + 1, settings.retryScheduleMs, settings.random, deps.clock.now());
    deps.metrics.deliveryAttempt(outcome.kind);
    const attempt = {
      attemptedAt,
      durationMs: post.durationMs,
      statusCode: post.statusCode,
      responseExcerpt: post.excerpt,
      error: post.error,
    };
    return finishedDelivery(row, attempt, outcome);
  }

  return {
    async attempt(row: ClaimedDelivery): Promise<FinishedDelivery> {
      const attemptedAt = deps.clock.now();
      const secrets = {
        webhookSecret: await signingSecretOf(deps, row),
        previousWebhookSecret: row.previousWebhookSecret,
        previousWebhookSecretExpiresAt: row.previousWebhookSecretExpiresAt,
      };
      const headers = {
        'content-type': 'application/json',
        'user-agent': userAgent,
        ...signatureHeaders(row.webhookId, attemptedAt, row.payload, secrets),
      };
      return finished(row, await postWebhook(agent, row.url, headers, row.payload, settings.timeoutMs, attemptedAt), attemptedAt);
    },

    close(): Promise<void> {
      return agent.destroy();
    },
  };
}
