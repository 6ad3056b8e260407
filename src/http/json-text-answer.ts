import type { Context, TypedResponse } from 'hono';

/**
 * Answers 200 with JSON text the service wrote itself, as `c.json` would answer the value it
 * encodes (same body, same Content-Type), typed as that value (`T`, the route's response schema)
 * so the route still declares what it answers. The API tests check that the text fits.
 */
export function jsonTextAnswer<T>(c: Context, text: string): Response & TypedResponse<T, 200, 'json'> {
  const answer: Response = c.body(text, 200, { 'Content-Type': 'application/json' });
  return answer as Response & TypedResponse<T, 200, 'json'>;
}
