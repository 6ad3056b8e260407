import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { remembering } from '../domain/remembering.ts';

/** Paths longer than this are matched afresh, so what the memory holds stays small whatever comes in. */
const MAX_REMEMBERED_PATH = 200;
const MAX_REMEMBERED_PATHS = 1_000;

/**
 * hono's default router, remembering its answer for each method and path. The app's routes make
 * hono's RegExpRouter refuse them (a fixed segment beside a parameter at the same place, as
 * `/api/v2/contacts/count` and `/api/v2/contacts/:phoneNumber`), so it walks its trie of some 400
 * routes at every request; an answer depends only on the method and the path, and the hot paths
 * (a send, a status callback) are the same at every call.
 */
export function rememberingRouter<T>(): Router<T> {
  const inner = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
  // The method is a token and holds no space: the first space ends it.
  const matchKey = remembering((key): Result<T> => {
    const space = key.indexOf(' ');
    return inner.match(key.slice(0, space), key.slice(space + 1));
  }, MAX_REMEMBERED_PATHS);
  return {
    name: 'RememberingRouter',
    add: (method, path, handler) => inner.add(method, path, handler),
    match: (method, path) => (path.length > MAX_REMEMBERED_PATH ? inner.match(method, path) : matchKey(`${method} ${path}`)),
  };
}
