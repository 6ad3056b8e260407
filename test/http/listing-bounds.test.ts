/**
 * A listing's cost is bounded whatever one account holds: its indexes keep the rows read to the
 * page asked for (test/db/query-plans*.test.ts), and the offset, which the database walks entry by
 * entry, is capped, so no request can make the server walk an account's whole history.
 */
import { describe, expect, it } from 'vitest';
import { MAX_OFFSET } from '../../src/domain/limits.ts';
import { makeTestApp } from '../helpers/app.ts';
import { show } from '../helpers/fixtures.ts';

const LISTINGS = ['/accounts/messages', '/api/v2/messages', '/accounts/webhooks/deliveries'];

describe('listing offsets', () => {
  for (const path of LISTINGS) {
    it(`${path} answers an offset up to ${MAX_OFFSET}, and refuses a deeper one with 400 naming offset`, async () => {
      const t = makeTestApp();
      const account = await t.createAccount();
      const deepest = await t.call('GET', `${path}?offset=${MAX_OFFSET}`, account);
      expect(deepest.status, show(deepest.body)).toBe(200);
      const deeper = await t.call('GET', `${path}?offset=${MAX_OFFSET + 1}`, account);
      expect(deeper.status, show(deeper.body)).toBe(400);
      expect(deeper.body.error_code).toBe(4000);
      expect(deeper.body.error_message).toContain(`offset must be at most ${MAX_OFFSET}`);
    });
  }
});
