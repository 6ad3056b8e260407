import type { MessageRow } from '../db/rows.ts';
import { isCarrierName } from '../domain/carriers.ts';
import type { ServiceDeps } from './deps.ts';
import { carrierOfLine } from './line-carriers.ts';

/**
 * Whether a carrier's status report is about a message handed over through that carrier: the
 * carrier of the message's line (a line bound to none: the first configured carrier, which
 * carries it), and the line itself when the report names one. Reports of other sources (the
 * sandbox, the relay's ingest) pass. A carrier's webhook secret or signature then vouches only
 * for that carrier's own messages.
 */
export async function reportedByItsCarrier(
  deps: ServiceDeps,
  message: Pick<MessageRow, 'lineNumber'>,
  report: { source: string; line?: string | undefined },
): Promise<boolean> {
  if (!isCarrierName(report.source)) return true;
  if (report.line !== undefined && report.line !== message.lineNumber) return false;
  const carrier = (await carrierOfLine(deps, message.lineNumber)) ?? deps.carriers?.forLine(undefined)?.name;
  return carrier === report.source;
}
