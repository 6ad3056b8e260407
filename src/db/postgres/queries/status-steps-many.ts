import { sql } from 'drizzle-orm';
import type { StatusStepWrite } from '../../sqlite/queries/whole-writes.ts';
import type { PgDb } from '../db.ts';
import { eventsLogged, eventsOffered } from './logged-events.ts';
import { type CallbackToQueue, callbacksOffered, withAndWithoutCallbacks } from './queued-callbacks.ts';
import { STATUS_EVENT_COLUMNS, statusEventsOffered } from './sends-many.ts';
import { unnestedRows } from './unnested-rows.ts';

const stepsOffered = unnestedRows<StatusStepWrite>('steps_offered', [
  ['message_id', 'bigint', (s) => s.messageId],
  ['status', 'text', (s) => s.update.status],
  ['error_code', 'bigint', (s) => s.update.errorCode],
  ['error_message', 'text', (s) => s.update.errorMessage],
  ['was_downgraded', 'boolean', (s) => s.update.wasDowngraded],
  ['date_updated', 'bigint', (s) => s.update.dateUpdated],
]);
const stepEventsOffered = statusEventsOffered('step_events_offered');

/**
 * A batch of status steps: the events inserted unless a unique index says they are recorded
 * already (an event repeated within the batch counts for its first step only); then, for the
 * steps whose event was inserted ("taken"), the message updates (a message's last step in the
 * batch decides, as one by one it would), the account events and the callbacks. Answers the
 * places (from 1) of the taken steps.
 */
const stepsWritten = withAndWithoutCallbacks(
  'status_steps_written',
  (queued) => sql`
with step_events_offered as (select * from ${stepEventsOffered.relation}),
step_events as (
  insert into status_events (${STATUS_EVENT_COLUMNS})
  select ${STATUS_EVENT_COLUMNS} from step_events_offered order by ord
  on conflict do nothing
  returning id),
steps_taken as (
  select min(offered.ord) as ord from step_events join step_events_offered as offered on offered.id = step_events.id
  group by step_events.id),
steps_offered as (select * from ${stepsOffered.relation}),
moved as (
  update messages set status = step.status, error_code = step.error_code, error_message = step.error_message,
    was_downgraded = step.was_downgraded, date_updated = step.date_updated
  from (select distinct on (message_id) * from steps_offered where ord in (select ord from steps_taken)
    order by message_id, ord desc) as step
  where id = step.message_id),
events_in as (select * from ${eventsOffered.relation} where call in (select ord from steps_taken)),
${eventsLogged}${queued}
select ord::int as ord from steps_taken`,
  sql`select * from ${callbacksOffered.relation} where call in (select ord from steps_taken)`,
);

export async function statusStepMany(db: PgDb, calls: readonly (readonly [StatusStepWrite])[]): Promise<boolean[]> {
  const steps = calls.map(([step]) => step);
  const callbacks: CallbackToQueue[] = [];
  steps.forEach((step, index) => {
    for (const callback of step.callbacks) callbacks.push({ call: index + 1, callback, at: step.event.receivedAt });
  });
  const values: Record<string, unknown[]> = {};
  stepsOffered.values(steps, values);
  stepEventsOffered.values(
    steps.map((s) => s.event),
    values,
  );
  eventsOffered.values(
    steps.map((s, index) => ({ call: index + 1, event: s.accountEvent })),
    values,
  );
  callbacksOffered.values(callbacks, values);
  const taken = new Set((await stepsWritten(db, values, callbacks.length > 0)).map((row) => row.ord as number));
  return steps.map((_, index) => taken.has(index + 1));
}
