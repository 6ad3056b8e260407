/** Assertions shared by the HTTP tests of the message endpoints. */
import { expect } from 'vitest';
import type { TestAccount, TestApp } from './app.ts';
import type { Reply } from './http.ts';

export type MessageErrorOptions = {
  /** Also require a non-empty error_message. */
  nonEmpty?: boolean;
};

/**
 * The message endpoints' error answer: `httpStatus` and exactly
 * {status: 'ERROR', error_code, error_message, message, error_detail: null}, message equal to error_message.
 */
export function expectMessageError(
  reply: Pick<Reply, 'status' | 'body'> & Partial<Reply>,
  httpStatus: number,
  errorCode: number,
  options: MessageErrorOptions = {},
): void {
  const dump = JSON.stringify(reply.body);
  expect(reply.status, dump).toBe(httpStatus);
  expect(reply.body, dump).toEqual({
    status: 'ERROR',
    error_code: errorCode,
    error_message: expect.any(String),
    message: expect.any(String),
    error_detail: null,
  });
  expect(reply.body.message, dump).toBe(reply.body.error_message);
  if (options.nonEmpty) expect(reply.body.error_message.length, dump).toBeGreaterThan(0);
}

/** A send answered 202 with a QUEUED message (of `messageType`, when given). */
export function expectAccepted(reply: Reply, messageType?: string): void {
  const dump = JSON.stringify(reply.body);
  expect(reply.status, dump).toBe(202);
  expect(reply.body.status, dump).toBe('QUEUED');
  if (messageType !== undefined) expect(reply.body.message_type, dump).toBe(messageType);
}

/** The account's messages from GET /accounts/messages, which must answer 200. */
export async function listMessages(t: TestApp, account: TestAccount): Promise<any[]> {
  const listed = await t.call('GET', '/accounts/messages', account);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.messages;
}

/** A rejected send: the error answer, and no message written for the account. */
export async function expectRejectedWithoutWrite(
  t: TestApp,
  account: TestAccount,
  reply: Reply,
  errorCode = 4000,
  httpStatus = 400,
  options: MessageErrorOptions = {},
): Promise<void> {
  expectMessageError(reply, httpStatus, errorCode, options);
  expect(await listMessages(t, account), JSON.stringify(reply.body)).toEqual([]);
}
