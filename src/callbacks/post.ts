import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { remembering } from '../domain/remembering.ts';
import { parseRetryAfter } from '../domain/retry-policy.ts';

/** The part of an answer kept in the attempt log (contract section 7). */
export const EXCERPT_BYTES = 2048;
/** Beyond this the rest of an answer is not even drained: the connection is dropped instead. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

export type PostResult = {
  /** null when no answer came (refused, timed out, reset). */
  statusCode: number | null;
  durationMs: number;
  excerpt: string;
  error: string | null;
  retryAfterMs: number | undefined;
};

function describe(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const detail = err.cause?.message ?? err.message ?? String(error);
  const code = err.cause?.code ?? err.code;
  return code ? `${code}: ${detail}` : detail;
}

/** Where a callback URL posts to, parsed once per URL: a batch's callbacks mostly share a few. */
const targetOf = remembering((url): { origin: string; path: string } | { error: string } => {
  try {
    const target = new URL(url);
    return { origin: target.origin, path: `${target.pathname}${target.search}` };
  } catch (error) {
    return { error: describe(error) };
  }
}, 1_000);

/**
 * One POST through the pooled keep-alive agent, as a handler on `agent.dispatch()`: undici's
 * `request()` wraps each answer in a Readable stream and an async resource, and its abort signal
 * adds a listener per request, a large share of the exchange's own cost.
 * Redirects are not followed, so a 3xx is an answer like any other non-2xx. Never rejects: every
 * way an attempt can go wrong is a result to record.
 */
export function postWebhook(
  agent: Dispatcher,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: number,
): Promise<PostResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let statusCode = 0;
    let retryAfter: string | undefined;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let seenBytes = 0;

    const settle = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const answered = () =>
      settle({ statusCode, excerpt: Buffer.concat(kept).toString('utf8'), error: null, retryAfterMs: parseRetryAfter(retryAfter, now) });
    const failed = (error: string) => settle({ statusCode: null, excerpt: '', error, retryAfterMs: undefined });

    // The deadline covers the whole exchange. Before undici hands over a controller (the request
    // still waits for a connection) there is nothing to abort yet: it is aborted as it starts.
    const timer = setTimeout(() => {
      failed(`timed out after ${timeoutMs} ms`);
      controller?.abort(new Error('timed out'));
    }, timeoutMs);

    const target = targetOf(url);
    if ('error' in target) {
      failed(target.error);
      return;
    }
    agent.dispatch(
      { origin: target.origin, path: target.path, method: 'POST', headers, body },
      {
        onRequestStart(requestController) {
          controller = requestController;
          if (settled) requestController.abort(new Error('timed out'));
        },
        onResponseStart(_, code, answerHeaders) {
          if (code < 200) return; // 100 Continue and the like: the answer is still to come
          statusCode = code;
          const value = answerHeaders['retry-after'];
          retryAfter = Array.isArray(value) ? value[0] : value;
        },
        onResponseData(current, chunk) {
          if (keptBytes < EXCERPT_BYTES) {
            const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
          seenBytes += chunk.length;
          if (seenBytes > DRAIN_LIMIT_BYTES) {
            answered();
            current.abort(new Error('answer too large'));
          }
        },
        onResponseEnd: answered,
        onResponseError(_, error) {
          failed(describe(error));
        },
      },
    );
  });
}
