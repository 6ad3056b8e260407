import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ProviderAnswer } from '../services/provider.ts';

/**
 * Answers with what the service returned, or, in relay mode, with the provider's own answer
 * (status and body) unchanged. Typed loosely on purpose: a provider's answer is whatever it sent.
 */
// biome-ignore lint/suspicious/noExplicitAny: the route's typed response is the local one; a provider's is returned as is.
export function answerOrRelay(c: Context<any>, result: unknown, status: ContentfulStatusCode = 200): any {
  if (result instanceof ProviderAnswer) return c.json(result.body as object, result.status as ContentfulStatusCode);
  return c.json(result as object, status);
}
