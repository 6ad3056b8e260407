import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/domain/attempt-outcome.ts';
import { type CallbackClaims, createCallbackClaims } from '../../src/domain/callback-claims.ts';
import { newcomerSlotsOf, urlBeforePath } from '../../src/domain/claim-slots.ts';

const NOW = 1_000_000;
const schedule = [5_000, 30_000, 120_000];

describe('what an attempt’s answer does', () => {
  const retryAt = (delay: number) => ({ kind: 'retry', nextAttemptAt: NOW + delay });

  it('a 2xx delivers, whatever the attempt', () => {
    expect(outcomeOf({ statusCode: 200 }, 1, schedule, () => 0.5, NOW)).toEqual({ kind: 'delivered' });
    expect(outcomeOf({ statusCode: 204 }, 4, schedule, () => 0.5, NOW)).toEqual({ kind: 'delivered' });
  });

  it('a failure is retried after the schedule’s pause, with ±20% jitter', () => {
    expect(outcomeOf({ statusCode: 500 }, 1, schedule, () => 0, NOW)).toEqual(retryAt(4_000));
    expect(outcomeOf({ statusCode: 500 }, 1, schedule, () => 0.5, NOW)).toEqual(retryAt(5_000));
    expect(
      outcomeOf({ statusCode: null }, 2, schedule, () => 0.999999, NOW),
      'no answer at all',
    ).toEqual(retryAt(36_000));
    expect(
      outcomeOf({ statusCode: 302 }, 3, schedule, () => 0.5, NOW),
      'a redirect is not followed',
    ).toEqual(retryAt(120_000));
  });

  it('gives up once the schedule is spent, or at once on 410', () => {
    expect(outcomeOf({ statusCode: 500 }, 4, schedule, () => 0.5, NOW)).toEqual({ kind: 'failed' });
    expect(outcomeOf({ statusCode: 410 }, 1, schedule, () => 0.5, NOW)).toEqual({ kind: 'failed' });
  });

  it('honours Retry-After without jitter, capped at the longest pause, never past the schedule', () => {
    expect(outcomeOf({ statusCode: 503, retryAfterMs: 60_000 }, 1, schedule, () => 0, NOW)).toEqual(retryAt(60_000));
    expect(outcomeOf({ statusCode: 429, retryAfterMs: 10 ** 9 }, 1, schedule, () => 0, NOW)).toEqual(retryAt(120_000));
    expect(outcomeOf({ statusCode: 503, retryAfterMs: 1_000 }, 4, schedule, () => 0, NOW)).toEqual({ kind: 'failed' });
  });
});

/** A due callback to `host`, at place `seq` of the due order. */
const due = (host: string, seq: number, accountId = 'acc_1') => ({ url: `https://${host}/hook`, accountId, dueAt: 1_000, seq });
const many = (host: string, from: number, count: number) => Array.from({ length: count }, (_, i) => due(host, from + i));
const seqs = (rows: readonly { seq: number }[]) => rows.map((row) => row.seq);

/** `count` posts in flight to `host`. */
function posting(claims: CallbackClaims, host: string, count: number): void {
  for (let i = 0; i < count; i++) claims.postStarted({ url: `https://${host}/hook`, accountId: 'acc_1' });
}

/** Offers `rows` as the database would: only after the claim's read start, counting what it read. */
function offer<T extends { seq: number }>(rows: readonly T[], start: 'first' | { seq: number }, limit: number) {
  const after = start === 'first' ? 0 : start.seq;
  let read = 0;
  const offered = rows.filter((row) => row.seq > after).slice(0, limit);
  function* reading() {
    for (const row of offered) {
      read += 1;
      yield row;
    }
  }
  return { rows: reading(), read: () => read };
}

// One account alone: with no newcomer slots it may fill a host, so these look at the host limit alone.
describe('which callbacks a claim takes', () => {
  it('due callbacks, oldest first, while there are free slots overall and on their host', () => {
    const claims = createCallbackClaims({ concurrency: 4, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 });
    const claim = claims.claim();
    expect(claim.readStart()).toBe('first');
    const chosen = claim.chooseDue([due('a', 1), due('a', 2), due('a', 3), due('b', 4), due('c', 5), due('c', 6)]);
    expect(seqs(chosen), 'a.example’s third waits: two to a host').toEqual([1, 2, 4, 5]);
    expect(claim.committed()).toBe(false);
  });

  it('offered the due callbacks a page at a time, goes on where it stopped and takes the same', () => {
    const rows = [due('a', 1), due('a', 2), due('a', 3), due('b', 4), due('c', 5), due('c', 6)];
    const whole = createCallbackClaims({ concurrency: 4, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 }).claim();
    whole.readStart();
    const paged = createCallbackClaims({ concurrency: 4, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 }).claim();
    paged.readStart();
    const firstPage = paged.chooseDue(rows.slice(0, 3));
    expect(paged.wantsMore(), 'two of four slots taken, the page ran out').toBe(true);
    const secondPage = paged.chooseDue(rows.slice(3));
    expect(paged.wantsMore(), 'every slot taken').toBe(false);
    expect(seqs([...firstPage, ...secondPage])).toEqual(seqs(whole.chooseDue(rows)));
  });

  it('counts posts in flight against the limits until they end', () => {
    const claims = createCallbackClaims({ concurrency: 3, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 });
    posting(claims, 'a', 2);
    expect(claims.freeSlots()).toBe(1);
    let claim = claims.claim();
    claim.readStart();
    expect(seqs(claim.chooseDue([due('a', 1), due('b', 2), due('b', 3)]))).toEqual([2]);
    claims.postEnded({ url: 'https://a/hook', accountId: 'acc_1' });
    claims.postStarted({ url: 'https://b/hook', accountId: 'acc_1' });
    claim = claims.claim();
    claim.readStart();
    expect(seqs(claim.chooseDue([due('a', 1), due('b', 3)]))).toEqual([1]);
  });

  it('starts the next callback of a finished one first, in the slot it left; one without room becomes due', () => {
    const claims = createCallbackClaims({ concurrency: 2, perHostLimit: 1, perAccountLimit: 1_000, newcomerSlots: 0 });
    const claim = claims.claim();
    const { startNow, makeDue } = claim.splitNext([due('a', 7), due('a', 9), due('b', 8)]);
    expect(seqs(startNow)).toEqual([7, 8]);
    expect(seqs(makeDue), 'a.example has its one slot taken').toEqual([9]);
    claim.readStart();
    expect(claim.chooseDue([due('c', 1)]), 'no slot left for due callbacks').toEqual([]);
  });

  it('a next callback made due restarts a read that paused on full hosts', () => {
    const claims = createCallbackClaims({ concurrency: 10, perHostLimit: 1, perAccountLimit: 1_000, newcomerSlots: 0 });
    posting(claims, 'a', 1);
    const first = claims.claim();
    first.readStart();
    first.chooseDue([due('a', 1)]);
    first.committed();
    expect(claims.claim().readStart(), 'only a full host has due callbacks').toBe('none');

    const next = claims.claim();
    expect(seqs(next.splitNext([due('a', 5)]).makeDue)).toEqual([5]);
    expect(next.readStart()).toBe('first');
  });
});

describe('reading a full host’s backlog in turns', () => {
  const LIMITS = { concurrency: 256, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 };
  const backlog = [...many('slow', 1, 200), due('fast', 201)];

  it('passes over at most 64 of a full host’s callbacks per claim, and the next claim resumes after them', () => {
    const claims = createCallbackClaims(LIMITS);
    posting(claims, 'slow', 2);
    const first = claims.claim();
    const firstRead = offer(backlog, first.readStart() as 'first', first.readLimit);
    expect(first.chooseDue(firstRead.rows)).toEqual([]);
    expect(firstRead.read(), 'stops at the 65th').toBe(65);
    expect(first.committed(), 'cut short with slots free: claim again at once').toBe(true);

    const second = claims.claim();
    expect(second.readStart()).toEqual({ dueAt: 1_000, seq: 64 });
    let start = second.readStart();
    const chosen: number[] = [];
    for (let claim = second; ; claim = claims.claim(), start = claim.readStart()) {
      chosen.push(...seqs(claim.chooseDue(offer(backlog, start as 'first', claim.readLimit).rows)));
      if (!claim.committed()) break;
    }
    expect(chosen, 'reached behind the backlog').toEqual([201]);
    expect(claims.claim().readStart(), 'every due callback left is slow.example’s, and it is full').toBe('none');
  });

  it('a claim whose transaction failed does not move the read on', () => {
    const claims = createCallbackClaims(LIMITS);
    posting(claims, 'slow', 2);
    const failed = claims.claim();
    failed.chooseDue(offer(backlog, failed.readStart() as 'first', failed.readLimit).rows);
    expect(claims.claim().readStart(), 'never committed').toBe('first');
  });

  it('keeps its place when the slots ran out, and starts over when restarted', () => {
    const claims = createCallbackClaims({ concurrency: 2, perHostLimit: 2, perAccountLimit: 1_000, newcomerSlots: 0 });
    const claim = claims.claim();
    claim.readStart();
    expect(seqs(claim.chooseDue([due('a', 1), due('b', 2), due('c', 3)]))).toEqual([1, 2]);
    expect(claim.committed(), 'the next answer frees a slot and claims anyway').toBe(false);
    expect(claims.claim().readStart()).toEqual({ dueAt: 1_000, seq: 2 });
    claims.restart();
    expect(claims.claim().readStart()).toBe('first');
  });

  it('after a read to the end, stops as soon as every host it found is full again', () => {
    const claims = createCallbackClaims(LIMITS);
    posting(claims, 'a', 2);
    posting(claims, 'b', 2);
    const rows = [...many('a', 1, 10), ...many('b', 11, 10)];
    const first = claims.claim();
    expect(first.readStart()).toBe('first');
    expect(first.nextReadSize(65), 'which hosts have due callbacks is not known yet: a whole page').toBe(65);
    first.chooseDue(offer(rows, 'first', first.readLimit).rows);
    expect(first.committed()).toBe(false);
    expect(claims.claim().readStart(), 'a and b are full').toBe('none');

    claims.postEnded({ url: 'https://a/hook', accountId: 'acc_1' });
    const second = claims.claim();
    expect(second.readStart(), 'a freed a slot').toBe('first');
    expect(second.nextReadSize(65), 'a’s free slot and the row that shows it full again').toBe(2);
    const read = offer(rows, 'first', second.readLimit);
    expect(seqs(second.chooseDue(read.rows))).toEqual([1]);
    expect(read.read(), 'stopped at the first callback it could not take: only full hosts have any').toBe(2);
    expect(second.committed()).toBe(false);
    claims.postStarted({ url: 'https://a/hook', accountId: 'acc_1' });
    expect(claims.claim().readStart()).toBe('none');
  });

  it('written or newly due callbacks end a pause, and a read under way no longer stops early', () => {
    const claims = createCallbackClaims(LIMITS);
    posting(claims, 'a', 2);
    const first = claims.claim();
    first.chooseDue(offer(many('a', 1, 5), first.readStart() as 'first', first.readLimit).rows);
    first.committed();
    expect(claims.claim().readStart()).toBe('none');
    claims.callbacksChanged();
    const second = claims.claim();
    expect(second.readStart()).toBe('first');
    const rows = [...many('a', 1, 5), due('c', 6)];
    expect(seqs(second.chooseDue(offer(rows, 'first', second.readLimit).rows)), 'c.example’s new callback is reached').toEqual([6]);
  });
});

describe('fairness between accounts', () => {
  const LIMITS = { concurrency: 256, perHostLimit: 64, perAccountLimit: 3 };
  /** `count` posts in flight for `accountId`, each to a host of its own. */
  function postingFor(claims: CallbackClaims, accountId: string, count: number): void {
    for (let i = 0; i < count; i++) claims.postStarted({ url: `https://h${i}.${accountId}/hook`, accountId });
  }

  it('takes at most the account’s share of an account’s backlog, then asks the database to leave it out', () => {
    const claims = createCallbackClaims(LIMITS);
    const claim = claims.claim();
    claim.readStart();
    expect(claim.leftOut().accounts, 'nobody is full yet').toEqual([]);
    const flood = Array.from({ length: 10 }, (_, i) => due(`h${i}.flood`, i + 1, 'flooder'));
    expect(seqs(claim.chooseDue(flood)), 'three slots for the flooder, each on a host with room').toEqual([1, 2, 3]);
    expect(claim.leftOut().accounts, 'the next page is read without its rows').toEqual(['flooder']);
    expect(seqs(claim.chooseDue([due('victim.example', 11, 'victim')]))).toEqual([11]);
  });

  it('leaves out an account full with posts in flight from the first read, whatever its backlog', () => {
    const claims = createCallbackClaims(LIMITS);
    postingFor(claims, 'flooder', 3);
    const claim = claims.claim();
    expect(claim.readStart()).toBe('first');
    expect(claim.leftOut().accounts).toEqual(['flooder']);
    claims.postEnded({ url: 'https://h0.flooder/hook', accountId: 'flooder' });
    const next = claims.claim();
    next.readStart();
    expect(next.leftOut().accounts, 'a slot freed: its callbacks are read again').toEqual([]);
  });

  it('a read that found nothing but left-out accounts pauses, and starts again when one of them frees a slot', () => {
    const claims = createCallbackClaims(LIMITS);
    postingFor(claims, 'flooder', 3);
    const first = claims.claim();
    first.readStart();
    first.leftOut();
    first.chooseDue([]);
    first.committed();
    expect(claims.claim().readStart(), 'only the full account may have due callbacks').toBe('none');
    claims.postEnded({ url: 'https://h0.flooder/hook', accountId: 'flooder' });
    expect(claims.claim().readStart()).toBe('first');
  });
});

describe('sharing a host between accounts', () => {
  /** 8 slots to a host, one of them kept for newcomers: 7 to share. */
  const LIMITS = { concurrency: 256, perHostLimit: 8, perAccountLimit: 1_000 };
  const to = (host: string, seq: number, accountId: string, path = '/hook') => ({
    url: `https://${host}${path}`,
    accountId,
    dueAt: 1_000,
    seq,
  });
  function postingTo(claims: CallbackClaims, host: string, accountId: string, count: number): void {
    for (let i = 0; i < count; i++) claims.postStarted({ url: `https://${host}/hook`, accountId });
  }
  /** Every row `rows` offers that a claim takes, read a page at a time as the database would: without what it leaves out. */
  function claimAll(claims: CallbackClaims, rows: ReturnType<typeof to>[]) {
    const claim = claims.claim();
    claim.readStart();
    const chosen: ReturnType<typeof to>[] = [];
    let after = 0;
    for (;;) {
      const { accounts, shares } = claim.leftOut();
      const skipped = new Set(shares.map((share) => `${share.accountId} ${share.urlBeforePath}`));
      const page = rows.filter(
        (row) => row.seq > after && !accounts.includes(row.accountId) && !skipped.has(`${row.accountId} ${urlBeforePath(row.url)}`),
      );
      chosen.push(...claim.chooseDue(page));
      if (page.length === 0 || !claim.wantsMore()) return seqs(chosen);
      after = claim.lastSeen()?.seq ?? after;
    }
  }

  it('keeps an eighth of a host’s slots, rounded up, for accounts with none in flight there, and never all of them', () => {
    expect([64, 32, 8, 2, 1].map(newcomerSlotsOf)).toEqual([8, 4, 1, 1, 0]);
  });

  it('a lone account gets all but the newcomer slots; another account’s callback behind its backlog takes one at once', () => {
    const claims = createCallbackClaims(LIMITS);
    const backlog = Array.from({ length: 100 }, (_, i) => to('shared.example', i + 1, 'flooder', `/flood/${i}`));
    const chosen = claimAll(claims, [...backlog, to('shared.example', 101, 'victim')]);
    expect(chosen).toEqual([1, 2, 3, 4, 5, 6, 7, 101]);
  });

  it('leaves out an account’s callbacks to a host whose share it holds, and only those', () => {
    const claims = createCallbackClaims(LIMITS);
    postingTo(claims, 'slow.example', 'flooder', 7);
    const claim = claims.claim();
    claim.readStart();
    expect(claim.leftOut(), 'its other hosts are read').toEqual({
      accounts: [],
      shares: [{ accountId: 'flooder', urlBeforePath: 'https://slow.example' }],
    });
    expect(seqs(claim.chooseDue([to('fast.example', 1, 'flooder'), to('slow.example', 2, 'victim')]))).toEqual([1, 2]);
  });

  it('a share that fills up ends the page where it did, and the next leaves out the URLs it read there', () => {
    const claims = createCallbackClaims(LIMITS);
    postingTo(claims, 'shared.example', 'flooder', 6);
    const claim = claims.claim();
    claim.readStart();
    expect(seqs(claim.chooseDue([to('shared.example', 1, 'flooder'), to('shared.example', 2, 'flooder', '/a')]))).toEqual([1]);
    expect(claim.wantsMore()).toBe(true);
    expect(claim.lastSeen()?.seq).toBe(2);
    expect(claim.leftOut().shares).toEqual([{ accountId: 'flooder', urlBeforePath: 'https://shared.example' }]);
  });

  it('the accounts with posts on a host share it equally: one above its part waits while the others take the slots that free up', () => {
    const claims = createCallbackClaims(LIMITS);
    postingTo(claims, 'shared.example', 'first', 7);
    let rows = [
      ...Array.from({ length: 10 }, (_, i) => to('shared.example', i + 1, 'first', `/first/${i}`)),
      ...Array.from({ length: 10 }, (_, i) => to('shared.example', i + 11, 'second', `/second/${i}`)),
    ];
    expect(claimAll(claims, rows), 'the newcomer slot').toEqual([11]);
    claims.postStarted({ url: 'https://shared.example/hook', accountId: 'second' });
    // Two share the host's 7 slots: 3 each. The first's posts end; the second takes what frees up, to its part.
    for (let i = 0; i < 4; i++) claims.postEnded({ url: 'https://shared.example/hook', accountId: 'first' });
    rows = rows.filter((row) => row.seq !== 11);
    expect(claimAll(claims, rows), 'the first holds 3, its part; the second grows to its 3').toEqual([12, 13]);
  });

  it('an account’s first callback to a host may take any free slot, even one the sharing accounts cannot', () => {
    const claims = createCallbackClaims(LIMITS);
    postingTo(claims, 'shared.example', 'first', 4);
    postingTo(claims, 'shared.example', 'second', 3);
    const chosen = claimAll(claims, [
      to('shared.example', 1, 'first'),
      to('shared.example', 2, 'second'),
      to('shared.example', 3, 'third'),
    ]);
    expect(chosen, '7 of 8 slots taken: only the newcomer may have the last').toEqual([3]);
  });
});
