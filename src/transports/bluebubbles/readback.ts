import { applyEvent, type BbEventContext, SOURCE } from './events.ts';
import { mapReadBack } from './mapping.ts';
import { BbMessage } from './schemas.ts';

const CURSOR_KEY = 'readback_after';
const SINCE_KEY = 'readback_since';
/** Deliveries and reads come to messages sent earlier: each pass reads this far behind its cursor. */
const STATUS_LOOKBACK_MS = 24 * 60 * 60 * 1000;
const PAGE = 200;

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
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.call('POST', '/message/query', {
      json: { after, offset, limit: PAGE, sort: 'ASC', with: ['chat', 'attachment'] },
    });
    const items = Array.isArray(page) ? page : [];
    for (const item of items) {
      const parsed = BbMessage.safeParse(item);
      if (!parsed.success) continue;
      await applyEvent(ctx, mapReadBack(parsed.data));
      newest = Math.max(newest, parsed.data.dateCreated ?? 0);
      read += 1;
    }
    if (items.length < PAGE) break;
  }
  await state.set(SOURCE, CURSOR_KEY, String(newest), deps.clock.now());
  return { read };
}
