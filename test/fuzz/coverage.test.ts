/**
 * The fuzzers' input table keeps up with the app: a route that takes a body or query needs valid
 * inputs to spoil (random junk only tests its first validation step), and an entry for a route
 * that no longer exists is a mistake. Routes with neither (pages, assets, probes, path-only
 * routes, whose parameters get the account's ids anyway) are fuzzed by the generic strategy.
 */
import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { openApiDocument, operationOf, routeKey, routeTable } from '../helpers/route-table.ts';
import { ROUTE_INPUTS } from './inputs.ts';

describe('fuzz coverage', () => {
  it('every route that documents a body or query parameters has valid inputs to spoil', async () => {
    const t = makeTestApp();
    const doc = await openApiDocument(t.app);
    const missing = routeTable(t.app).filter((route) => {
      const operation = operationOf(doc, route);
      const takesInput =
        operation?.requestBody !== undefined || (operation?.parameters ?? []).some((parameter) => parameter.in === 'query');
      return takesInput && ROUTE_INPUTS[routeKey(route)] === undefined;
    });
    expect(missing.map(routeKey), 'add them to test/fuzz/inputs.ts').toEqual([]);
  });

  it('every entry of the input table is a route of the app', () => {
    const keys = new Set(routeTable(makeTestApp().app).map(routeKey));
    expect(Object.keys(ROUTE_INPUTS).filter((key) => !keys.has(key))).toEqual([]);
  });
});
