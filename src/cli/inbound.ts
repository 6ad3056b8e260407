import type { TransportKind } from '../domain/carriers.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkPhoneNumber, hasE164Shape, notValidNumberProblem } from '../domain/phone.ts';
import { AppError } from '../services/app-error.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { SandboxInbound, SENDER_EXPECTED } from '../services/message-input.ts';
import { receiveSandboxInbound, requireAccountByEmail } from '../services/sandbox.ts';
import { parseInput } from '../services/validation.ts';

export type InboundFlags = {
  email?: string | undefined;
  from?: string | undefined;
  content?: string | undefined;
  'group-id'?: string | undefined;
  'media-url'?: string | undefined;
};

/**
 * `textrelay inbound`: an end user texts the account, through the validation and the service of
 * `POST /sandbox/inbound`. Answers the stored message (RECEIVED).
 */
export async function inboundCommand(deps: ServiceDeps & { transportName: TransportKind }, flags: InboundFlags) {
  if (deps.transportName !== 'sandbox') {
    throw new AppError(
      ErrorCode.validation,
      `textrelay inbound simulates the sandbox network; TEXTRELAY_TRANSPORT is ${deps.transportName}`,
    );
  }
  if (!flags.email) throw new AppError(ErrorCode.validation, '--email is required');
  if (!flags.from) throw new AppError(ErrorCode.validation, '--from is required');
  const sender = checkPhoneNumber(flags.from);
  if (!sender.ok && sender.reason === 'invalid') {
    const problem = hasE164Shape(flags.from) ? notValidNumberProblem(flags.from) : SENDER_EXPECTED;
    throw new AppError(ErrorCode.validation, `--from ${problem}`);
  }
  const input = parseInput(SandboxInbound, {
    number: flags.from,
    content: flags.content,
    media_url: flags['media-url'],
    group_id: flags['group-id'],
  });
  return receiveSandboxInbound(deps, await requireAccountByEmail(deps, flags.email), input);
}
