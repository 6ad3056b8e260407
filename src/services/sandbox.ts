import type { AccountRow } from '../db/rows.ts';
import type { NewSandboxStep, SandboxStepRow } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { type PlannedStep, planTimeline, sandboxBehaviour } from '../domain/sandbox-numbers.ts';
import type { InboundService } from '../domain/webhook-payloads.ts';
import { AppError } from './app-error.ts';
import { messageKey } from './batch-keys.ts';
import type { ServiceDeps } from './deps.ts';
import type { OutboundMessage } from './handover.ts';
import { getMessageStatus } from './messages.ts';
import { receiveInbound } from './receive-inbound.ts';
import { recordStatusInTransaction } from './record-status.ts';
import { inTransaction, inWriteTransaction, type WriteOptions } from './transactions.ts';
import { reportTyping } from './typing.ts';

/** The name the sandbox network reports under, in status histories and inbound messages. */
export const SANDBOX_SOURCE = 'sandbox';

/** A 555-0102 number has no iMessage: what it writes arrives as SMS. */
function serviceOf(number: string): InboundService {
  return sandboxBehaviour(number) === 'sms' ? 'SMS' : 'iMessage';
}

/**
 * One literal with every column, not a spread of the shared ones plus the rest: V8 gives each
 * object built that way a new hidden class, a map allocation per step.
 */
function toRow(message: OutboundMessage, step: PlannedStep, stepIndex: number, dueAt: number): NewSandboxStep {
  const status = step.kind === 'status' ? step : undefined;
  const inbound = step.kind === 'inbound' ? step : undefined;
  const writer = step.kind === 'status' ? undefined : step;
  return {
    messageHandle: message.handle,
    stepIndex,
    dueAt,
    kind: step.kind,
    status: status?.status ?? null,
    errorCode: status?.errorCode ?? null,
    errorMessage: null,
    wasDowngraded: status?.wasDowngraded ?? null,
    inboundFrom: writer?.from ?? null,
    inboundContent: inbound?.content ?? null,
    groupId: writer ? message.groupId : null,
  };
}

/**
 * Plans the whole timeline of a message handed to the sandbox, `stepMs` apart from now. Returns
 * how many steps are new: none when the same message was handed over before.
 */
export async function planSandboxTimeline(
  deps: ServiceDeps,
  message: OutboundMessage,
  stepMs: number,
  options: WriteOptions = {},
): Promise<number> {
  return inWriteTransaction(deps, options, { kind: 'sandbox plans', keys: [messageKey(message.handle)] }, async (deps) => {
    const stored = await deps.store.messages.findByAnyHandle(message.handle);
    // Its first report was applied, so its steps ran (and were deleted): planning again would replay them.
    if (stored && stored.status !== 'QUEUED') return 0;
    return planNewTimeline(deps, message, stepMs);
  });
}

/** Plans the timeline of a message the sandbox has never seen: one just stored, in the transaction that stores it. */
export async function planNewTimeline(deps: ServiceDeps, message: OutboundMessage, stepMs: number): Promise<number> {
  const now = deps.clock.now();
  const rows = planTimeline(message).map((step, index) => toRow(message, step, index, now + step.atStep * stepMs));
  const planned = await deps.store.sandbox.plan(rows);
  if (planned > 0) deps.notify.sandboxPlanned?.(Math.min(...rows.map((row) => row.dueAt)));
  return planned;
}

/** The step's own id: the network never reports the same step twice, and the database holds it to that. */
function stepId(step: SandboxStepRow): string {
  return `${step.messageHandle}/${step.stepIndex}`;
}

/** Call inside the transaction that deletes the step. */
async function applyStep(deps: ServiceDeps, step: SandboxStepRow): Promise<void> {
  if (step.kind === 'status') {
    if (step.status === null) throw new Error(`sandbox step ${stepId(step)} has no status`);
    await recordStatusInTransaction(deps, {
      handle: step.messageHandle,
      status: step.status,
      errorCode: step.errorCode,
      errorMessage: step.errorMessage,
      wasDowngraded: step.wasDowngraded,
      source: SANDBOX_SOURCE,
      sourceEventId: stepId(step),
    });
    return;
  }
  const original = await deps.store.messages.findByAnyHandle(step.messageHandle);
  const account = original && (await deps.store.accounts.findById(original.accountId));
  if (!account || step.inboundFrom === null) throw new Error(`sandbox step ${stepId(step)} names no account or sender`);
  if (step.kind === 'typing') {
    await reportTyping(deps, account, { number: step.inboundFrom, fromNumber: original.lineNumber, isTyping: true }, deps.clock.now());
    return;
  }
  try {
    await receiveInbound(deps, account, {
      from: step.inboundFrom,
      content: step.inboundContent ?? '',
      mediaUrl: '',
      service: serviceOf(step.inboundFrom),
      source: SANDBOX_SOURCE,
      transportHandle: stepId(step),
      groupId: step.groupId ?? undefined,
    });
  } catch (error) {
    // The conversation no longer takes the reply (the member left the group): the reply is lost, as on a phone.
    if (!(error instanceof AppError)) throw error;
    deps.log.warn({ step: stepId(step), err: error }, 'sandbox reply dropped');
  }
}

/**
 * Applies every step due now, each in its own transaction together with its deletion, so each
 * happens exactly once even across a crash. Returns how many steps ran.
 */
export async function runDueSandboxSteps(deps: ServiceDeps): Promise<number> {
  const now = deps.clock.now();
  let ran = 0;
  for (;;) {
    const applied = await inTransaction(deps, async (deps) => {
      const step = await deps.store.sandbox.nextDue(now);
      if (!step) return false;
      await applyStep(deps, step);
      await deps.store.sandbox.remove(step.id);
      return true;
    });
    if (!applied) break;
    ran += 1;
  }
  return ran;
}

/** When the next planned step is due, if any is. */
export async function nextSandboxStepAt(deps: ServiceDeps): Promise<number | undefined> {
  return deps.store.sandbox.earliestDueAt();
}

/** An end user's message as `POST /sandbox/inbound` and `textrelay inbound` take it, already validated. */
export type SandboxInboundInput = {
  number: string;
  content?: string | undefined;
  mediaUrl?: string | undefined;
  /** One of the account's groups; `number` must be a member. */
  groupId?: string | undefined;
};

/** An end user texts the account on the sandbox network; answers the stored message (RECEIVED). */
export async function receiveSandboxInbound(deps: ServiceDeps, account: AccountRow, input: SandboxInboundInput) {
  if ((await deps.store.accounts.listServiceNumbers(account.id)).includes(input.number)) {
    throw new AppError(ErrorCode.validation, `${input.number} is one of this account's own numbers, not an end user`);
  }
  const { message } = await receiveInbound(deps, account, {
    from: input.number,
    content: input.content ?? '',
    mediaUrl: input.mediaUrl ?? '',
    service: serviceOf(input.number),
    source: SANDBOX_SOURCE,
    groupId: input.groupId,
  });
  return getMessageStatus(deps, account, message.handle, false);
}

/** The account a CLI command names by email. */
export async function requireAccountByEmail(deps: ServiceDeps, email: string): Promise<AccountRow> {
  const account = await deps.store.accounts.findByEmail(email);
  if (!account) throw new AppError(ErrorCode.notFound, `No account with email ${email}`);
  return account;
}
