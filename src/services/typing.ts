import type { AccountRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { sandboxBehaviour } from '../domain/sandbox-numbers.ts';
import { recordAccountEvent } from './account-events.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { lineActionsOf, requireLineAbility } from './line-carriers.ts';
import { requireOwnLine } from './lines.ts';
import type { ProviderAnswer } from './provider.ts';
import { inTransaction } from './transactions.ts';
import { fanOutToAccountWebhooks } from './webhook-fanout.ts';

export const TYPING_STATES = ['start', 'stop'] as const;
export type TypingState = (typeof TYPING_STATES)[number];

export type TypingIndicatorInput = {
  number: string;
  fromNumber: string;
  state: TypingState;
  maxDurationMs?: number | undefined;
};

export type TypingIndicatorSent = { number: string; status: 'SENT'; error_message: null };

/** Refuses a typing indicator, like a send, to someone who opted out. */
async function requireNotOptedOut(deps: ServiceDeps, account: AccountRow, number: string): Promise<void> {
  if ((await deps.store.contacts.findByPhone(account.id, number))?.optedOut) {
    throw new AppError(ErrorCode.validation, `${number} has opted out: no typing indicator is sent to them`);
  }
}

/**
 * Shows (or hides) "typing…" to an end user. The sandbox network acknowledges it (its echo number
 * types back); in relay mode the provider shows it and its answer is returned as it is; a carrier
 * that shows it itself (BlueBubbles) answers SENT once it did, else refuses.
 */
export async function sendTypingIndicator(
  deps: ServiceDeps,
  account: AccountRow,
  input: TypingIndicatorInput,
): Promise<TypingIndicatorSent | ProviderAnswer> {
  await requireOwnLine(deps, account, input.fromNumber);
  await requireLineAbility(deps, account, 'typing', input.fromNumber);
  await requireNotOptedOut(deps, account, input.number);
  if (deps.providers) {
    const body = { number: input.number, from_number: input.fromNumber, state: input.state, max_duration_ms: input.maxDurationMs };
    return deps.providers.of(account).call({ method: 'POST', path: '/api/send-typing-indicator', body });
  }
  const carrier = await lineActionsOf(deps, input.fromNumber);
  if (carrier) {
    await carrier.typing({ number: input.number, state: input.state });
    return { number: input.number, status: 'SENT', error_message: null };
  }
  if (input.state === 'start' && sandboxBehaviour(input.number) === 'echo') await echoTyping(deps, account, input);
  return { number: input.number, status: 'SENT', error_message: null };
}

/** The sandbox's echo number answers "typing…" with its own, as it answers a message with its reply. */
async function echoTyping(deps: ServiceDeps, account: AccountRow, input: TypingIndicatorInput): Promise<void> {
  await inTransaction(deps, async (deps) =>
    reportTyping(deps, account, { number: input.number, fromNumber: input.fromNumber, isTyping: true }, deps.clock.now()),
  );
}

/**
 * An end user typing to a line: a `typing_indicator` webhook to the account's list and a
 * `typing.changed` event. Call inside a transaction.
 */
export async function reportTyping(
  deps: ServiceDeps,
  account: AccountRow,
  typing: { number: string; fromNumber: string; isTyping: boolean },
  now: number,
): Promise<void> {
  const data = { number: typing.number, from_number: typing.fromNumber, is_typing: typing.isTyping };
  await recordAccountEvent(deps, account.id, 'typing.changed', data, now);
  const payload = JSON.stringify({ ...data, timestamp: new Date(now).toISOString() });
  await fanOutToAccountWebhooks(
    deps,
    account,
    { type: 'typing_indicator', eventType: 'typing.changed', orderKey: `typing:${typing.fromNumber}:${typing.number}`, payload },
    now,
  );
  deps.notify.accountActivity?.(account.id);
}
