import { afterAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/services/accounts.ts';
import { openInboxSession } from '../../src/services/inbox-sessions.ts';
import { makeTestApp } from '../helpers/app.ts';

/*
 * A miss (unknown key id) must cost what a known key id with a wrong secret costs, or the time of
 * an answer tells which key ids exist. Measured where the difference lives, the credential check
 * itself: over HTTP the rest of the request drowns a skipped hash in noise.
 *
 * Honest about noise on a shared machine: known and unknown calls alternate (so a burst of load
 * hits both), each sample is a batch, medians are compared with a wide tolerance, and a failing
 * measurement is taken again before the test fails. A miss that skips the lookup's row or the
 * hash costs about half of a wrong secret, far outside the tolerance.
 */
const SAMPLES = 300;
const CALLS_PER_SAMPLE = 20;
const TOLERANCE = 0.25;
const ATTEMPTS = 3;
const WRONG_SECRET = `sk_${'x'.repeat(43)}`;

const t = makeTestApp();
afterAll(() => t.db.$client.close());
for (let filler = 0; filler < 20; filler++) await t.createAccount();
const account = await t.createAccount();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The median time of a miss over the median time of a wrong secret. */
async function missOverWrongSecret(check: (keyId: string, secret: string) => Promise<unknown>): Promise<number> {
  const known: number[] = [];
  const unknown: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const unknownKeyId = `key_${sample.toString(16).padStart(24, '0')}`;
    const pair: [string, number[]][] = [
      [account.api_key_id, known],
      [unknownKeyId, unknown],
    ];
    if (sample % 2 === 1) pair.reverse();
    for (const [keyId, times] of pair) {
      const started = performance.now();
      for (let call = 0; call < CALLS_PER_SAMPLE; call++) await check(keyId, WRONG_SECRET);
      times.push(performance.now() - started);
    }
  }
  return median(unknown) / median(known);
}

async function expectSameCost(check: (keyId: string, secret: string) => Promise<unknown>) {
  expect(await check(account.api_key_id, WRONG_SECRET)).toBeUndefined();
  expect(await check('key_unknown', WRONG_SECRET)).toBeUndefined();
  await missOverWrongSecret(check);
  const ratios: number[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const ratio = await missOverWrongSecret(check);
    ratios.push(ratio);
    if (Math.abs(1 - ratio) <= TOLERANCE) return;
  }
  expect.fail(`an unknown key id took ${ratios.map((ratio) => `${Math.round(ratio * 100)}%`).join(', ')} of a wrong secret's time`);
}

describe('an unknown key id costs what a wrong secret costs', () => {
  it('for API credentials', async () => {
    await expectSameCost((keyId, secret) => authenticate(t.deps, keyId, secret));
  });

  it('for the inbox login', async () => {
    await expectSameCost((keyId, secret) => openInboxSession(t.deps, keyId, secret));
  });
});
