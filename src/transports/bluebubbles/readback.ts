import { itemsWithProblems, recordCarrierProblem, resolveCarrierProblems } from '../../services/carrier-problems.ts';
import { type BbEventContext, SOURCE } from './event-context.ts';
import { applyEvent } from './events.ts';
import { type BbEvent, mapReadBack } from './mapping.ts';
import { BbMessage } from './schemas.ts';

const CURSOR_KEY = 'readback_after';
const SINCE_KEY = 'readback_since';
/** Deliveries and reads come to messages sent earlier: each pass reads this far behind its cursor. */
const STATUS_LOOKBACK_MS = 24 * 60 * 60 * 1000;
const PAGE = 200;

/** Writes down an event that could not be recorded, for the operator and the line's account. */
export async function recordItemProblem(ctx: BbEventContext, event: BbEvent, error: unknown): Promise<void> {
  if (event.kind === 'ignored') return;
  const line = await ctx.line();
  const owner = line === undefined ? undefined : await ctx.deps.store.accounts.findByServiceNumber(line);
  const what =
    event.kind === 'inbound'
      ? `The iMessage ${event.guid} from ${event.from} could not be recorded yet: ${ctx.describe(error)}; it is read back again`
      : `The status ${event.status} of the message ${event.guid} could not be recorded yet: ${ctx.describe(error)}; it is read back again`;
  ctx.deps.log.warn({ source: SOURCE, item: event.guid, reason: ctx.describe(error) }, 'a BlueBubbles item could not be recorded');
  await recordCarrierProblem(ctx.deps, SOURCE, { item: event.guid, accountId: owner?.id ?? null, what });
}

/**
 * Reads back what webhooks may have missed (BlueBubbles never retries one): every message
 * created since the cursor, and a day behind it for deliveries, reads and errors. What was already
 * recorded changes nothing; the cursor is kept in the database, so a restart resumes from it.
 * Nothing before textrelay's first start is read: the Mac's history is not the account's.
 */
export async function readBack(ctx: BbEventContext): Promise<{ read: number }> {
  const { deps, client } = ctx;
  const state = deps.store.carrierState;
  const since = Number((await state.get(SOURCE, SINCE_KEY)) ?? Number.NaN);
  const cursor = Number((await state.get(SOURCE, CURSOR_KEY)) ?? Number.NaN);
  if (Number.isNaN(since)) {
    // The Mac's dates are wall-clock times: compared with its clock, not the services' (a test's may be fake).
    const now = Date.now();
    await state.set(SOURCE, SINCE_KEY, String(now), deps.clock.now());
    await state.set(SOURCE, CURSOR_KEY, String(now), deps.clock.now());
    return { read: 0 };
  }
  const after = Math.max(since, (Number.isNaN(cursor) ? since : cursor) - STATUS_LOOKBACK_MS);
  let newest = Number.isNaN(cursor) ? since : cursor;
  let read = 0;
  const open = await itemsWithProblems(deps, SOURCE);
  const recorded = new Set<string>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.call('POST', '/message/query', {
      json: { after, offset, limit: PAGE, sort: 'ASC', with: ['chat', 'attachment'] },
    });
    const items = Array.isArray(page) ? page : [];
    for (const item of items) {
      const parsed = BbMessage.safeParse(item);
      if (!parsed.success) continue;
      const event = mapReadBack(parsed.data);
      try {
        await applyEvent(ctx, event);
        if (event.kind !== 'ignored' && open.has(event.guid)) recorded.add(event.guid);
      } catch (error) {
        // One item never holds the others back: it is written down, and the next passes take it again.
        await recordItemProblem(ctx, event, error);
      }
      newest = Math.max(newest, parsed.data.dateCreated ?? 0);
      read += 1;
    }
    if (items.length < PAGE) break;
  }
  await state.set(SOURCE, CURSOR_KEY, String(newest), deps.clock.now());
  await resolveCarrierProblems(deps, SOURCE, recorded);
  return { read };
}
