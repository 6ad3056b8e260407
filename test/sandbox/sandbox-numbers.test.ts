import { describe, expect, it } from 'vitest';
import { planTimeline, sandboxBehaviour, timelineBehaviour } from '../../src/domain/sandbox-numbers.ts';

/** A plan as readable lines: `step status`, `step typing from` or `step reply from content`. */
function lines(plan: ReturnType<typeof planTimeline>): string[] {
  return plan.map((step) => {
    if (step.kind === 'status')
      return `${step.atStep} ${step.status}${step.errorCode ? ` ${step.errorCode}` : ''}${step.wasDowngraded ? ' sms' : ''}`;
    if (step.kind === 'typing') return `${step.atStep} typing from ${step.from}`;
    return `${step.atStep} reply from ${step.from}: ${step.content}`;
  });
}

describe('sandboxBehaviour', () => {
  it('reads the last digits 555-0100..0106 in any area code', () => {
    expect(
      ['+14155550100', '+12125550101', '+13055550102', '+19175550103', '+16175550104', '+17025550105', '+18055550106'].map(
        sandboxBehaviour,
      ),
    ).toEqual(['default', 'no_read', 'sms', 'fails', 'unconfirmed', 'noisy', 'echo']);
  });

  it('any other number is an iMessage user who reads', () => {
    for (const number of ['+14155550107', '+14155550110', '+14155551106', '+12124567000', '+447700900123']) {
      expect(sandboxBehaviour(number), number).toBe('default');
    }
  });
});

describe('timelineBehaviour of a group: its most limiting member', () => {
  it.each([
    [['+12125550100', '+12125550106', '+12125550105', '+12125550101', '+12125550102', '+12125550104', '+12125550103'], 'fails'],
    [['+12125550100', '+12125550106', '+12125550105', '+12125550101', '+12125550102', '+12125550104'], 'unconfirmed'],
    [['+12125550100', '+12125550106', '+12125550105', '+12125550101', '+12125550102'], 'sms'],
    [['+12125550100', '+12125550106', '+12125550105', '+12125550101'], 'no_read'],
    [['+12125550100', '+12125550106', '+12125550105'], 'noisy'],
    [['+12125550100', '+12125550106'], 'default'],
  ])('%j → %s', (members, expected) => {
    expect(timelineBehaviour(members)).toBe(expected);
  });
});

describe('planTimeline', () => {
  const message = (recipients: string[], content = 'hi', mediaUrl = '') => ({ recipients, content, mediaUrl });

  it('plans each test number one step apart, ERROR 10002 of 555-0104 three steps after the hand-over', () => {
    expect(lines(planTimeline(message(['+12125550100'])))).toEqual(['1 SENT', '2 DELIVERED', '3 READ']);
    expect(lines(planTimeline(message(['+12125550102'])))).toEqual(['1 SENT sms']);
    expect(lines(planTimeline(message(['+12125550103'])))).toEqual(['1 ERROR 10001']);
    expect(lines(planTimeline(message(['+12125550104'])))).toEqual(['1 SENT', '3 ERROR 10002']);
  });

  it('the noisy number reports each status twice, DELIVERED a step before SENT', () => {
    expect(lines(planTimeline(message(['+12125550105'])))).toEqual(['1 DELIVERED', '1 DELIVERED', '2 SENT', '2 SENT', '3 READ', '3 READ']);
  });

  it('each echo member types, then replies, in the step of the first DELIVERED, after its reports, once however often listed', () => {
    expect(lines(planTimeline(message(['+12125550106', '+13125550106', '+12125550106', '+12125550105'], 'team')))).toEqual([
      '1 DELIVERED',
      '1 DELIVERED',
      '1 typing from +12125550106',
      '1 reply from +12125550106: echo: team',
      '1 typing from +13125550106',
      '1 reply from +13125550106: echo: team',
      '2 SENT',
      '2 SENT',
      '3 READ',
      '3 READ',
    ]);
  });

  it('echoes a message without text by its link, and not at all when nothing is delivered', () => {
    expect(lines(planTimeline(message(['+12125550106'], '', 'https://cdn.example.com/a.png')))).toContain(
      '2 reply from +12125550106: echo: https://cdn.example.com/a.png',
    );
    expect(lines(planTimeline(message(['+12125550106', '+12125550103'])))).toEqual(['1 ERROR 10001']);
  });
});
