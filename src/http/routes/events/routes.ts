import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import {
  createStreamSlots,
  EVENT_STREAM_DEFAULTS,
  type EventStreamSettings,
  parseEventTypes,
  readEventsAfter,
  streamErrorFrame,
  streamStart,
} from '../../../services/event-stream.ts';
import { storageTrouble } from '../../../services/storage-errors.ts';
import type { AppDeps } from '../../app-deps.ts';
import type { AppEnv } from '../../env.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { AccountEvent, EventStreamQuery, LastEventIdHeader } from './schemas.ts';

const streamEventsRoute = createRoute({
  method: 'get',
  path: '/api/v2/events',
  tags: ['Events'],
  operationId: 'streamEvents',
  summary: "The account's events as server-sent events (resume with Last-Event-ID)",
  security: API_SECURITY,
  parameters: [LastEventIdHeader.parameter],
  request: { query: EventStreamQuery },
  responses: {
    200: {
      description: 'An endless text/event-stream: `id: <id>` and `data: <AccountEvent JSON>` per event, `: ping` comments as heartbeats',
      content: { 'text/event-stream': { schema: AccountEvent } },
    },
    ...apiErrors(
      'message',
      {
        400: 'An unknown event type in types, or a Last-Event-ID that is no event id (4000)',
        429: 'Too many streams open for this account (4001)',
      },
      { body: false },
    ),
  },
});

/** Resolves when `ms` pass or `wake` is called, whichever is first. */
function nap(ms: number, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    onWake(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Sends the account's events after `afterId` until the client goes away or the process stops: the
 * log is read whenever a writer of this process reports activity, and every `pollMs` regardless.
 * While the database cannot be read the stream stays open (heartbeats go on) and reads again; past
 * `outageGraceMs`, or on any other failure, it ends with an `error` frame naming where to resume,
 * never silently.
 */
async function sendEvents(
  deps: AppDeps,
  stream: SSEStreamingApi,
  signal: AbortSignal,
  start: { accountId: string; afterId: number; types: ReadonlySet<string> | undefined },
  settings: EventStreamSettings,
): Promise<void> {
  let afterId = start.afterId;
  let ended = false;
  let dirty = false;
  let wake = () => {};
  const end = () => {
    ended = true;
    wake();
  };
  const unwatch = deps.notify.watchAccount(start.accountId, {
    activity() {
      dirty = true;
      wake();
    },
    end,
  });
  stream.onAbort(end);
  signal.addEventListener('abort', end);
  const heartbeat = setInterval(() => void stream.write(': ping\n\n'), settings.heartbeatMs);
  let troubleSince: number | undefined;
  try {
    while (!ended && !stream.aborted) {
      dirty = false;
      try {
        for (let more = true; more && !ended; ) {
          const batch = await readEventsAfter(deps, start.accountId, afterId, start.types);
          for (const event of batch.events) await stream.write(`id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
          afterId = batch.nextAfterId;
          more = batch.more;
        }
        troubleSince = undefined;
      } catch (error) {
        const trouble = storageTrouble(error) !== undefined;
        troubleSince ??= Date.now();
        if (!trouble || Date.now() - troubleSince >= settings.outageGraceMs) {
          if (!trouble) deps.log.error({ err: error, accountId: start.accountId }, 'events stream failed');
          await stream.write(streamErrorFrame(afterId, trouble));
          return;
        }
      }
      if (!dirty && !ended) await nap(settings.pollMs, (resolve) => (wake = resolve));
      wake = () => {};
    }
  } finally {
    clearInterval(heartbeat);
    signal.removeEventListener('abort', end);
    unwatch();
  }
}

/** GET /api/v2/events: the account's durable event log, live, as server-sent events. */
export function eventsRouter(deps: AppDeps) {
  const settings = { ...EVENT_STREAM_DEFAULTS, ...deps.eventStreams };
  const slots = createStreamSlots(settings.perAccount);
  const router = createRouter();
  router.use('/api/v2/events', ...apiRoute(deps, 'message'));
  router.openapi(streamEventsRoute, async (c: Context<AppEnv>) => {
    const accountId = c.get('account').id;
    const types = parseEventTypes(c.req.query('types'));
    const afterId = await streamStart(deps, accountId, LastEventIdHeader.read(c) ?? c.req.query('last_event_id'));
    const release = slots.take(accountId);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      try {
        await sendEvents(deps, stream, c.req.raw.signal, { accountId, afterId, types }, settings);
      } finally {
        release();
      }
    });
  });
  return router;
}
