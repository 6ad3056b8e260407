import { describe, expect, it } from 'vitest';
import { createDueScan, type ScanOutcome } from '../../src/webhooks/due-scan.ts';

const LIMIT = 2;
const full = () => LIMIT;
const idle = () => 0;
const at = (seq: number) => ({ dueAt: 1_000, seq });
const outcome = (over: Partial<ScanOutcome>): ScanOutcome => ({ passedOver: new Set(), lastSeen: undefined, cutShort: false, slotsFull: false, onlyFullHostsBeyond: false, ...over });

describe('the walk over due rows', () => {
  it('starts from the first due row while nothing is held back', () => {
    const scan = createDueScan(LIMIT);
    expect(scan.start(full)).toBe('first');
    expect(scan.finished(outcome({ lastSeen: at(3) }))).toBe(false);
    expect(scan.start(full)).toBe('first');
  });

  it('resumes after the last row seen when a scan passed over a full host and was cut short, at the next tick', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    expect(scan.finished(outcome({ passedOver: new Set(['slow.example']), lastSeen: at(64), cutShort: true }))).toBe(true);
    expect(scan.start(full)).toEqual(at(64));
    // A freed slot does not restart the walk: rows beyond it would never be reached under steady traffic.
    expect(scan.start(idle)).toEqual(at(64));
    scan.changed(); // nor do new rows: they are due now, so the walk reaches them
    expect(scan.start(full)).toEqual(at(64));
  });

  it('waits at the end of a walk that passed over full hosts, until one of them frees a slot or rows change', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    scan.finished(outcome({ passedOver: new Set(['slow.example']), lastSeen: at(64), cutShort: true }));
    scan.start(full);
    expect(scan.finished(outcome({ passedOver: new Set(['slow.example']), lastSeen: at(90) }))).toBe(false);
    expect(scan.start(full)).toBe('none');
    expect(scan.start((host) => (host === 'slow.example' ? LIMIT - 1 : LIMIT))).toBe('first');

    scan.finished(outcome({ passedOver: new Set(['slow.example']), lastSeen: at(90) }));
    expect(scan.start(full)).toBe('none');
    scan.changed();
    expect(scan.start(full)).toBe('first');
  });

  it('keeps its place when the slots ran out, and remembers every host a walk passed over', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    expect(scan.finished(outcome({ passedOver: new Set(['a.example']), lastSeen: at(10), slotsFull: true }))).toBe(false);
    expect(scan.start(full)).toEqual(at(10));
    scan.finished(outcome({ passedOver: new Set(['b.example']), lastSeen: at(20) }));
    expect(scan.start((host) => (host === 'a.example' ? 0 : LIMIT)), 'a.example was passed over earlier in the walk').toBe('first');
  });

  it('after a walk to the end, stops the next one as soon as every host it found is full again', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    expect(scan.worthGoingOn(full), 'a first walk knows nothing of the rows beyond').toBe(true);
    scan.finished(outcome({ passedOver: new Set(['a.example', 'b.example']), lastSeen: at(90) }));

    // a.example freed a slot: a walk from the first row takes its oldest rows...
    const loads = new Map([['a.example', LIMIT - 1], ['b.example', LIMIT]]);
    const loadOf = (host: string) => loads.get(host) ?? 0;
    expect(scan.start(loadOf)).toBe('first');
    expect(scan.worthGoingOn(loadOf), 'a.example still has room').toBe(true);
    loads.set('a.example', LIMIT);
    // ...and once both are full, nothing behind can be taken: no walk over the backlog again.
    expect(scan.worthGoingOn(loadOf)).toBe(false);
    expect(scan.finished(outcome({ passedOver: new Set(['b.example']), lastSeen: at(5), onlyFullHostsBeyond: true }))).toBe(false);
    expect(scan.start(full)).toBe('none');
    expect(scan.start((host) => (host === 'a.example' ? 0 : LIMIT)), 'a.example is still known to have rows').toBe('first');
  });

  it('forgets what a walk found once rows change, and goes on walking', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    scan.finished(outcome({ passedOver: new Set(['a.example']), lastSeen: at(90) }));
    expect(scan.start(idle)).toBe('first');
    scan.changed(); // a row of another host may now be due, anywhere behind the walk
    expect(scan.worthGoingOn(full)).toBe(true);
    expect(scan.finished(outcome({ passedOver: new Set(['a.example']), lastSeen: at(64), cutShort: true }))).toBe(true);
    expect(scan.start(full)).toEqual(at(64));
  });

  it('starts over from the first row when reset', () => {
    const scan = createDueScan(LIMIT);
    scan.start(full);
    scan.finished(outcome({ passedOver: new Set(['slow.example']), lastSeen: at(64), cutShort: true }));
    scan.reset();
    expect(scan.start(full)).toBe('first');
  });
});
