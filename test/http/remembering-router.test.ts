import { TrieRouter } from 'hono/router/trie-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rememberingRouter } from '../../src/http/remembering-router.ts';
import { makeTestApp } from '../helpers/app.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The handlers a match found, and the parameters of each. */
function matched(router: ReturnType<typeof rememberingRouter<string>>, method: string, path: string) {
  const [handlers, stash] = router.match(method, path);
  return handlers.map(([handler, params]) => {
    const named = Object.entries(params).map(([name, value]) => [name, stash ? stash[value as number] : value]);
    return [handler, Object.fromEntries(named)];
  });
}

describe('the remembering router', () => {
  it('answers a path it matched before from memory, with the same handlers and parameters', () => {
    const walks = vi.spyOn(TrieRouter.prototype, 'match');
    const router = rememberingRouter<string>();
    router.add('ALL', '*', 'context');
    router.add('GET', '/api/v2/contacts/count', 'count');
    router.add('GET', '/api/v2/contacts/:phoneNumber', 'contact');

    // Every route that matches, in order: the first that answers wins.
    const count = [
      ['context', {}],
      ['count', {}],
      ['contact', { phoneNumber: 'count' }],
    ];
    const contact = [
      ['context', {}],
      ['contact', { phoneNumber: '%2B14155550100' }],
    ];
    expect(matched(router, 'GET', '/api/v2/contacts/count')).toEqual(count);
    expect(matched(router, 'GET', '/api/v2/contacts/%2B14155550100')).toEqual(contact);
    const walked = walks.mock.calls.length;
    expect(matched(router, 'GET', '/api/v2/contacts/count')).toEqual(count);
    expect(matched(router, 'GET', '/api/v2/contacts/%2B14155550100')).toEqual(contact);
    expect(matched(router, 'POST', '/api/v2/contacts/count')).toEqual([['context', {}]]);
    expect(walks.mock.calls.length).toBe(walked + 1);
  });

  it('matches a long path afresh every time', () => {
    const walks = vi.spyOn(TrieRouter.prototype, 'match');
    const router = rememberingRouter<string>();
    router.add('GET', '/a/count', 'count');
    router.add('GET', '/a/:id', 'one');
    const long = `/a/${'x'.repeat(300)}`;
    for (let i = 0; i < 3; i += 1) expect(matched(router, 'GET', long)).toEqual([['one', { id: 'x'.repeat(300) }]]);
    expect(walks.mock.calls.length).toBe(3);
  });

  it('routes the app’s requests as before', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    expect((await t.call('GET', '/api/v2/contacts/count', account)).status).toBe(200);
    expect((await t.call('GET', '/api/v2/contacts/count', account)).body).toEqual({ count: 0 });
    expect((await t.call('GET', '/api/v2/contacts/%2B14155550100', account)).status).toBe(404);
  });
});
