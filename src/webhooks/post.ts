import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
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

function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const detail = err.cause?.message ?? err.message ?? String(error);
  const code = err.cause?.code ?? err.code;
  return code ? `${code}: ${detail}` : detail;
}

/**
 * One POST through the pooled keep-alive agent. Redirects are not followed (undici's request
 * does not), so a 3xx is an answer like any other non-2xx. Never throws: every way an attempt
 * can go wrong is a result to record.
 */
export async function postWebhook(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: number,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await request(url, { method: 'POST', dispatcher: agent, headers, body, signal: controller.signal });
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let seenBytes = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (keptBytes < EXCERPT_BYTES) {
        const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      seenBytes += chunk.length;
      if (seenBytes > DRAIN_LIMIT_BYTES) {
        response.body.destroy();
        break;
      }
    }
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      durationMs: elapsed(),
      excerpt: Buffer.concat(kept).toString('utf8'),
      error: null,
      retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now),
    };
  } catch (error) {
    return { statusCode: null, durationMs: elapsed(), excerpt: '', error: describe(error, timedOut, timeoutMs), retryAfterMs: undefined };
  } finally {
    clearTimeout(timer);
  }
}
