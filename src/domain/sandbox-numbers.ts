/**
 * The sandbox phone network's test numbers (contract section 6). Pure: from the recipients of a
 * message, the timeline of reports the simulated network will make about it, in steps of
 * `TEXTRELAY_SANDBOX_STEP_MS`.
 */
import { ErrorCode } from './error-codes.ts';
import type { MessageStatus } from './status.ts';
import { previewOf } from './views.ts';

export const SANDBOX_BEHAVIOURS = ['default', 'no_read', 'sms', 'fails', 'unconfirmed', 'noisy', 'echo'] as const;
export type SandboxBehaviour = (typeof SANDBOX_BEHAVIOURS)[number];

/** 555-0100 .. 555-0106 in any area code: the index into SANDBOX_BEHAVIOURS. */
const TEST_NUMBER = /555010([0-6])$/;

export function sandboxBehaviour(number: string): SandboxBehaviour {
  const match = TEST_NUMBER.exec(number);
  return match ? SANDBOX_BEHAVIOURS[Number(match[1])]! : 'default';
}

/**
 * For a group, the member who limits the message most decides its timeline: a failure anywhere
 * fails the group, an SMS-only member turns it into MMS, one member who never reads keeps it
 * unread. Earlier in this list is more limiting.
 */
const MOST_LIMITING_FIRST: readonly SandboxBehaviour[] = ['fails', 'unconfirmed', 'sms', 'no_read', 'noisy'];

export type StatusReportStep = {
  kind: 'status';
  /** How many steps after the hand-over the network reports it. */
  atStep: number;
  status: MessageStatus;
  errorCode: number | null;
  wasDowngraded: boolean | null;
};

export type InboundStep = { kind: 'inbound'; atStep: number; from: string; content: string };

/** The end user starts typing on their phone: reported just before their reply arrives. */
export type TypingStep = { kind: 'typing'; atStep: number; from: string };

export type PlannedStep = StatusReportStep | TypingStep | InboundStep;

function report(atStep: number, status: MessageStatus, extra: { errorCode?: number; wasDowngraded?: boolean } = {}): StatusReportStep {
  return { kind: 'status', atStep, status, errorCode: extra.errorCode ?? null, wasDowngraded: extra.wasDowngraded ?? null };
}

const IMESSAGE = { wasDowngraded: false };

const STATUS_TIMELINES: Record<Exclude<SandboxBehaviour, 'echo'>, StatusReportStep[]> = {
  default: [report(1, 'SENT', IMESSAGE), report(2, 'DELIVERED', IMESSAGE), report(3, 'READ', IMESSAGE)],
  no_read: [report(1, 'SENT', IMESSAGE), report(2, 'DELIVERED', IMESSAGE)],
  sms: [report(1, 'SENT', { wasDowngraded: true })],
  fails: [report(1, 'ERROR', { errorCode: ErrorCode.sendFailed })],
  unconfirmed: [report(1, 'SENT', IMESSAGE), report(3, 'ERROR', { errorCode: ErrorCode.statusUnresolved })],
  // Every report twice, and DELIVERED a step before the SENT it implies.
  noisy: [
    report(1, 'DELIVERED', IMESSAGE),
    report(1, 'DELIVERED', IMESSAGE),
    report(2, 'SENT', IMESSAGE),
    report(2, 'SENT', IMESSAGE),
    report(3, 'READ', IMESSAGE),
    report(3, 'READ', IMESSAGE),
  ],
};

/** The behaviour of a message's status timeline: its recipient's, or for a group its most limiting member's. */
export function timelineBehaviour(recipients: readonly string[]): Exclude<SandboxBehaviour, 'echo'> {
  const behaviours = new Set(recipients.map(sandboxBehaviour));
  const limiting = MOST_LIMITING_FIRST.find((behaviour) => behaviours.has(behaviour));
  return (limiting ?? 'default') as Exclude<SandboxBehaviour, 'echo'>;
}

export type SandboxMessage = { recipients: readonly string[]; content: string; mediaUrl: string };

/**
 * Every report the network makes about a message, in the order it makes them (ties in `atStep`
 * keep list order). Each 555-0106 recipient types, then replies `echo: <content>`, in the step of the
 * first DELIVERED, after that step's reports; a timeline that never reaches DELIVERED has no reply.
 */
export function planTimeline(message: SandboxMessage): PlannedStep[] {
  const statuses = STATUS_TIMELINES[timelineBehaviour(message.recipients)];
  const echoers = [...new Set(message.recipients)].filter((number) => sandboxBehaviour(number) === 'echo');
  const delivered = statuses.findIndex((step) => step.status === 'DELIVERED');
  if (echoers.length === 0 || delivered === -1) return [...statuses];

  const atStep = statuses[delivered]!.atStep;
  // A message with only an attachment is echoed by its link, so the reply never reads "echo: ".
  const content = `echo: ${previewOf(message.content, message.mediaUrl)}`;
  const echoes = echoers.flatMap((from): PlannedStep[] => [
    { kind: 'typing', atStep, from },
    { kind: 'inbound', atStep, from, content },
  ]);
  const afterDelivered = statuses.findIndex((step, index) => index > delivered && step.atStep > atStep);
  const cut = afterDelivered === -1 ? statuses.length : afterDelivered;
  return [...statuses.slice(0, cut), ...echoes, ...statuses.slice(cut)];
}
