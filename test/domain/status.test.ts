import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideStatus,
  isFinalStatus,
  MESSAGE_STATUSES,
  type MessageStatus,
  PROGRESS_ORDER,
  type StatusDecision,
} from '../../src/domain/status.ts';

// Shorthands for writing the expected table by hand.
const dup: StatusDecision = { applied: false, reason: 'duplicate' };
const stale: StatusDecision = { applied: false, reason: 'stale' };
const final: StatusDecision = { applied: false, reason: 'final' };
const inbound: StatusDecision = { applied: false, reason: 'inbound' };
const notOutbound: StatusDecision = { applied: false, reason: 'not_outbound_status' };

/**
 * The full 6x6 decision table, written out explicitly (not derived from the implementation).
 * Columns: current status, incoming status, expected decision.
 */
const TABLE: ReadonlyArray<readonly [MessageStatus, MessageStatus, StatusDecision]> = [
  // current QUEUED
  ['QUEUED', 'QUEUED', dup],
  ['QUEUED', 'SENT', { applied: true, steps: [{ status: 'SENT', implied: false }] }],
  [
    'QUEUED',
    'DELIVERED',
    {
      applied: true,
      steps: [
        { status: 'SENT', implied: true },
        { status: 'DELIVERED', implied: false },
      ],
    },
  ],
  [
    'QUEUED',
    'READ',
    {
      applied: true,
      steps: [
        { status: 'SENT', implied: true },
        { status: 'DELIVERED', implied: true },
        { status: 'READ', implied: false },
      ],
    },
  ],
  ['QUEUED', 'ERROR', { applied: true, steps: [{ status: 'ERROR', implied: false }] }],
  ['QUEUED', 'RECEIVED', notOutbound],

  // current SENT
  ['SENT', 'QUEUED', stale],
  ['SENT', 'SENT', dup],
  ['SENT', 'DELIVERED', { applied: true, steps: [{ status: 'DELIVERED', implied: false }] }],
  [
    'SENT',
    'READ',
    {
      applied: true,
      steps: [
        { status: 'DELIVERED', implied: true },
        { status: 'READ', implied: false },
      ],
    },
  ],
  ['SENT', 'ERROR', { applied: true, steps: [{ status: 'ERROR', implied: false }] }],
  ['SENT', 'RECEIVED', notOutbound],

  // current DELIVERED
  ['DELIVERED', 'QUEUED', stale],
  ['DELIVERED', 'SENT', stale],
  ['DELIVERED', 'DELIVERED', dup],
  ['DELIVERED', 'READ', { applied: true, steps: [{ status: 'READ', implied: false }] }],
  ['DELIVERED', 'ERROR', stale],
  ['DELIVERED', 'RECEIVED', notOutbound],

  // current READ (final)
  ['READ', 'QUEUED', final],
  ['READ', 'SENT', final],
  ['READ', 'DELIVERED', final],
  ['READ', 'READ', dup],
  ['READ', 'ERROR', final],
  // RECEIVED is never an outbound status; that check takes precedence over finality.
  ['READ', 'RECEIVED', notOutbound],

  // current ERROR (final)
  ['ERROR', 'QUEUED', final],
  ['ERROR', 'SENT', final],
  ['ERROR', 'DELIVERED', final],
  ['ERROR', 'READ', final],
  ['ERROR', 'ERROR', dup],
  ['ERROR', 'RECEIVED', notOutbound],

  // current RECEIVED (inbound message: no delivery timeline)
  ['RECEIVED', 'QUEUED', inbound],
  ['RECEIVED', 'SENT', inbound],
  ['RECEIVED', 'DELIVERED', inbound],
  ['RECEIVED', 'READ', inbound],
  ['RECEIVED', 'ERROR', inbound],
  ['RECEIVED', 'RECEIVED', dup],
];

const rank = (status: MessageStatus): number => (PROGRESS_ORDER as readonly string[]).indexOf(status);

describe('status constants', () => {
  it('lists the six message statuses', () => {
    expect([...MESSAGE_STATUSES]).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ', 'ERROR', 'RECEIVED']);
  });

  it('orders outbound progress QUEUED < SENT < DELIVERED < READ', () => {
    expect([...PROGRESS_ORDER]).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });
});

describe('decideStatus: full decision table', () => {
  it('the table covers every (current, incoming) pair exactly once', () => {
    expect(TABLE).toHaveLength(MESSAGE_STATUSES.length * MESSAGE_STATUSES.length);
    const keys = new Set(TABLE.map(([current, incoming]) => `${current}->${incoming}`));
    expect(keys.size).toBe(36);
    for (const current of MESSAGE_STATUSES) {
      for (const incoming of MESSAGE_STATUSES) {
        expect(keys.has(`${current}->${incoming}`)).toBe(true);
      }
    }
  });

  it.each(TABLE)('%s + %s', (current, incoming, expected) => {
    expect(decideStatus(current, incoming)).toStrictEqual(expected);
  });

  it('returns fresh step arrays (callers may mutate them safely)', () => {
    const a = decideStatus('QUEUED', 'READ');
    const b = decideStatus('QUEUED', 'READ');
    expect(a).toStrictEqual(b);
    if (a.applied && b.applied) {
      expect(a.steps).not.toBe(b.steps);
      a.steps.pop();
      expect(decideStatus('QUEUED', 'READ')).toStrictEqual(b);
    }
  });
});

describe('isFinalStatus', () => {
  it.each([
    ['QUEUED', false],
    ['SENT', false],
    ['DELIVERED', false],
    ['READ', true],
    ['ERROR', true],
    ['RECEIVED', true],
  ] as const)('%s -> %s', (status, expected) => {
    expect(isFinalStatus(status)).toBe(expected);
  });

  it('agrees with decideStatus: a final status never applies any event, a non-final one can', () => {
    for (const current of MESSAGE_STATUSES) {
      const anyApplies = MESSAGE_STATUSES.some((incoming) => decideStatus(current, incoming).applied);
      expect(anyApplies).toBe(!isFinalStatus(current));
    }
  });
});

describe('decideStatus: properties', () => {
  const progressStatus = fc.constantFrom(...PROGRESS_ORDER);
  const anyStatus = fc.constantFrom(...MESSAGE_STATUSES);

  it('any sequence of outbound progress events ends at the highest rank seen, with a gap-free timeline', () => {
    fc.assert(
      fc.property(fc.array(progressStatus, { maxLength: 30 }), (events) => {
        let current: MessageStatus = 'QUEUED';
        const timeline: MessageStatus[] = ['QUEUED'];
        let highest = 0;

        for (const incoming of events) {
          highest = Math.max(highest, rank(incoming));
          const decision = decideStatus(current, incoming);
          if (decision.applied) {
            // Only the reported status is "real"; everything before it in this decision is implied.
            const last = decision.steps[decision.steps.length - 1];
            expect(last).toEqual({ status: incoming, implied: false });
            for (const step of decision.steps.slice(0, -1)) expect(step.implied).toBe(true);
            for (const step of decision.steps) timeline.push(step.status);
            current = incoming;
          } else {
            expect(['duplicate', 'stale', 'final']).toContain(decision.reason);
            if (decision.reason === 'duplicate') expect(incoming).toBe(current);
            if (decision.reason === 'stale') expect(rank(incoming)).toBeLessThan(rank(current));
            if (decision.reason === 'final') {
              expect(current).toBe('READ');
              expect(incoming).not.toBe('READ');
            }
          }
        }

        // Final status = highest rank seen (QUEUED counts as seen: it is the start).
        expect(current).toBe(PROGRESS_ORDER[highest]);
        // Timeline is a gap-free, strictly increasing prefix of the order; each status at most once.
        expect(timeline).toEqual(PROGRESS_ORDER.slice(0, highest + 1));
        expect(new Set(timeline).size).toBe(timeline.length);
      }),
    );
  });

  it('mixed sequences (including ERROR and RECEIVED) keep the outbound timeline consistent', () => {
    fc.assert(
      fc.property(fc.array(anyStatus, { maxLength: 30 }), (events) => {
        let current: MessageStatus = 'QUEUED';
        const timeline: MessageStatus[] = ['QUEUED'];

        for (const incoming of events) {
          const wasFinal = isFinalStatus(current);
          const decision = decideStatus(current, incoming);
          if (incoming === 'RECEIVED') expect(decision.applied).toBe(false);
          if (wasFinal && incoming !== current) expect(decision.applied).toBe(false);
          if (decision.applied) {
            for (const step of decision.steps) timeline.push(step.status);
            current = incoming;
          }
        }

        // ERROR can appear at most once, only last, and only straight after QUEUED or SENT.
        const errorAt = timeline.indexOf('ERROR');
        if (errorAt !== -1) {
          expect(errorAt).toBe(timeline.length - 1);
          expect(['QUEUED', 'SENT']).toContain(timeline[errorAt - 1]);
          expect(current).toBe('ERROR');
        }
        const progress = errorAt === -1 ? timeline : timeline.slice(0, errorAt);
        expect(progress).toEqual(PROGRESS_ORDER.slice(0, progress.length));
        expect(timeline).not.toContain('RECEIVED');
      }),
    );
  });

  it('an inbound (RECEIVED) message never applies any event', () => {
    fc.assert(
      fc.property(anyStatus, (incoming) => {
        const decision = decideStatus('RECEIVED', incoming);
        expect(decision).toStrictEqual({
          applied: false,
          reason: incoming === 'RECEIVED' ? 'duplicate' : 'inbound',
        });
      }),
    );
  });

  it('re-applying the status just reached is always a duplicate', () => {
    fc.assert(
      fc.property(anyStatus, (status) => {
        expect(decideStatus(status, status)).toStrictEqual({ applied: false, reason: 'duplicate' });
      }),
    );
  });
});
