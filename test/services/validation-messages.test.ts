import { describe, expect, it } from 'vitest';
import { LinesFlags } from '../../src/cli/account-flags.ts';
import { SendMessageBody } from '../../src/http/routes/sends/schemas.ts';
import type { AppError } from '../../src/services/app-error.ts';
import { parseInput } from '../../src/services/validation.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, show } from '../helpers/fixtures.ts';

/** Validation messages: one plain sentence per problem, naming the field and what it expects. */

function messageOf(schema: Parameters<typeof parseInput>[0], input: unknown): string {
  try {
    parseInput(schema, input);
  } catch (error) {
    return (error as AppError).message;
  }
  throw new Error('the input was accepted');
}

describe('validation messages', () => {
  it.each([
    [{ number: '12', content: 'x' }, 'number must be E.164, like +14155550100'],
    [{ content: 'x' }, 'number is required'],
    [{ number: 5, content: 'x' }, 'number must be text'],
    [{ number: ALICE }, 'Either content or media_url is required'],
    [{ number: ALICE, content: 'x', send_style: 'wobble' }, 'send_style must be one of: celebration, shooting_star'],
    [{ number: ALICE, content: 'x', media_url: 'ftp://x/a.jpg' }, 'media_url must be an http or https URL'],
    [{ number: '911', content: 'x' }, 'number must not be an emergency number or short code (911 cannot be messaged)'],
    [
      { number: '+15551234567', content: 'x' },
      'number is not a valid phone number (+15551234567 is written in E.164, but no numbering plan assigns it)',
    ],
  ])('a send of %o says %j', (input, expected) => {
    expect(messageOf(SendMessageBody, input)).toContain(expected);
  });

  it('says each problem once, separated', () => {
    expect(messageOf(SendMessageBody, { number: '12', content: 'x', send_style: 'x', seat_id: 1 })).toBe(
      'number must be E.164, like +14155550100; send_style must be one of: celebration, shooting_star, fireworks, lasers, love, confetti, balloons, spotlight, echo, invisible, gentle, loud, slam; seat_id must be text',
    );
  });

  it('an inbound message from an invalid number says so in inbound words', async () => {
    const t = makeTestApp();
    const response = await t.call('POST', '/sandbox/inbound', await t.createAccount(), { number: 'nope', content: 'hi' });
    expect(response.status, show(response.body)).toBe(400);
    expect(response.body.error_message).toBe("number must be the sender's E.164 number, like +14155550100");
  });

  it('a line written in E.164 that no plan assigns is called not valid; other text is asked for in E.164', () => {
    const issues = LinesFlags.safeParse({ email: 'a@example.com', numbers: ['+15551234567', 'line-1'] }).error?.issues;
    expect(issues?.map((issue) => issue.message)).toEqual([
      'NUMBERS: +15551234567 is not a valid phone number (+15551234567 is written in E.164, but no numbering plan assigns it)',
      'NUMBERS: line-1 is not a phone number in E.164 form (+14155550100)',
    ]);
  });

  it('an inbound message from a number written in E.164 but not assigned says it is not valid', async () => {
    const t = makeTestApp();
    const response = await t.call('POST', '/sandbox/inbound', await t.createAccount(), { number: '+15551234567', content: 'hi' });
    expect(response.status, show(response.body)).toBe(400);
    expect(response.body.error_message).toBe(
      'number is not a valid phone number (+15551234567 is written in E.164, but no numbering plan assigns it)',
    );
  });

  it('keeps the v1 contact wording the spec fixes', async () => {
    const t = makeTestApp();
    const response = await t.call('POST', '/accounts/contacts', await t.createAccount(), { firstName: 'a', lastName: 'b', number: 'x' });
    expect(response.body).toEqual({ status: 'ERROR', message: 'Invalid phone number' });
  });
});
