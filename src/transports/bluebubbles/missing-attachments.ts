import { z } from 'zod';
import { carrierList } from '../../services/carrier-lists.ts';
import { recordCarrierProblem } from '../../services/carrier-problems.ts';
import { mediaUrlOf, storeReceivedMedia } from '../../services/media.ts';
import { receiveFromTransport, type TransportInbound } from '../../services/receive-inbound.ts';
import { MAX_ANSWER_BYTES } from './client.ts';
import { type BbEventContext, SOURCE } from './event-context.ts';
import type { BbInboundAttachment } from './mapping.ts';

const MISSING_KEY = 'missing_attachments';
/** Fetches of one attachment, the first included, before it is given up. */
export const ATTACHMENT_ATTEMPTS = 5;
/** A given-up entry is kept while read-back passes still see its message (a day behind the cursor), so they skip it. */
const KEPT_MS = 2 * 24 * 60 * 60 * 1000;

/** An attachment whose message is stored without it: fetched again on each read-back pass, as a message of its own. */
const Missing = z.object({
  attachmentGuid: z.string(),
  /** The handle its own message gets once fetched. */
  handle: z.string(),
  messageGuid: z.string(),
  mimeType: z.string().nullable(),
  inbound: z.object({
    from: z.string(),
    service: z.enum(['iMessage', 'SMS']),
    toNumber: z.string(),
    transportGroupId: z.string().optional(),
    participants: z.array(z.string()).optional(),
  }),
  accountId: z.string().nullable(),
  attempts: z.number().int(),
  /** Fetched, or given up: kept only so passes that see its message again skip it. */
  settled: z.boolean(),
  since: z.number(),
});
type Missing = z.output<typeof Missing>;

const missing = carrierList(SOURCE, MISSING_KEY, Missing);

/** A settled entry is dropped once read-back passes no longer see its message. */
function kept(ctx: BbEventContext, entries: Missing[]): Missing[] {
  const now = ctx.deps.clock.now();
  return entries.filter((entry) => !entry.settled || now - entry.since < KEPT_MS);
}

/** Whether the attachment is already waiting for a later pass or given up: an event seen again leaves it to them. */
export async function isMissing(ctx: BbEventContext, attachmentGuid: string): Promise<boolean> {
  return (await missing.read(ctx.deps)).some((entry) => entry.attachmentGuid === attachmentGuid);
}

/** A file too large for textrelay to take from the Mac: fetching it again cannot help. */
function tooLarge(attachment: BbInboundAttachment, error: unknown): boolean {
  if ((attachment.totalBytes ?? 0) > MAX_ANSWER_BYTES) return true;
  return error instanceof Error && /exceeded max size/i.test(`${error.message} ${error.name}`);
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? '' : `, ${Math.ceil(bytes / (1024 * 1024))} MB`;
}

async function giveUp(ctx: BbEventContext, entry: Missing, reason: string): Promise<void> {
  await recordCarrierProblem(ctx.deps, SOURCE, {
    // The attachment's guid: the message itself was recorded, and a read-back of it settles nothing here.
    item: entry.attachmentGuid,
    accountId: entry.accountId,
    what: `An attachment (${entry.mimeType ?? 'file'}) of the iMessage ${entry.messageGuid} from ${entry.inbound.from} could not be fetched from the Mac: ${reason}; its text was kept`,
  });
}

/**
 * Marks an attachment that could not be fetched as missing: a file too large is given up at
 * once, any other failure is fetched again on the next read-back passes (ATTACHMENT_ATTEMPTS in all).
 */
export async function markMissing(
  ctx: BbEventContext,
  attachment: BbInboundAttachment,
  message: { guid: string; handle: string; inbound: Missing['inbound']; accountId: string | null },
  error: unknown,
): Promise<void> {
  const large = tooLarge(attachment, error);
  const entry: Missing = {
    attachmentGuid: attachment.guid,
    handle: message.handle,
    messageGuid: message.guid,
    mimeType: attachment.mimeType ?? null,
    inbound: message.inbound,
    accountId: message.accountId,
    attempts: 1,
    settled: large,
    since: ctx.deps.clock.now(),
  };
  await missing.change(ctx.deps, (entries) => kept(ctx, [...entries.filter((old) => old.attachmentGuid !== attachment.guid), entry]));
  if (large) await giveUp(ctx, entry, `too large (over ${MAX_ANSWER_BYTES / (1024 * 1024)} MB${megabytes(attachment.totalBytes)})`);
  ctx.deps.log.warn(
    { source: SOURCE, message: message.guid, attachment: attachment.guid, reason: ctx.describe(error) },
    large
      ? 'an iMessage attachment is too large to fetch: its text was kept'
      : 'an iMessage attachment could not be fetched: its text was kept, it is fetched again later',
  );
}

/** An attachment fetched from the Mac and kept as the line owner's, at textrelay's own media URL. */
export async function fetchAttachment(ctx: BbEventContext, attachment: { guid: string; mimeType?: string | null }, accountId: string) {
  const file = await ctx.client.download(`/attachment/${encodeURIComponent(attachment.guid)}/download`);
  const row = await storeReceivedMedia(ctx.deps, accountId, {
    sourceUrl: `bluebubbles:attachment/${attachment.guid}`,
    contentType: attachment.mimeType ?? file.contentType,
    bytes: file.bytes,
  });
  return mediaUrlOf(ctx.publicUrl, row);
}

/** One read-back pass's try at each missing attachment: fetched ones arrive as messages of their own. */
export function retryMissingAttachments(ctx: BbEventContext): Promise<void> {
  return missing.change(ctx.deps, async (entries) => {
    if (!entries.some((entry) => !entry.settled)) return undefined;
    for (const entry of entries) await retryOne(ctx, entry);
    return kept(ctx, entries);
  });
}

async function retryOne(ctx: BbEventContext, entry: Missing): Promise<void> {
  if (entry.settled || entry.accountId === null) return;
  try {
    const mediaUrl = await fetchAttachment(ctx, { guid: entry.attachmentGuid, mimeType: entry.mimeType }, entry.accountId);
    const inbound: TransportInbound = { ...entry.inbound, content: '', mediaUrl, source: SOURCE, transportHandle: entry.handle };
    await receiveFromTransport(ctx.deps, inbound);
    entry.settled = true;
  } catch (error) {
    entry.attempts += 1;
    if (entry.attempts >= ATTACHMENT_ATTEMPTS) {
      entry.settled = true;
      await giveUp(ctx, entry, `${ctx.describe(error)} (tried ${entry.attempts} times)`);
    }
  }
}
