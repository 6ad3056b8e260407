/**
 * The listings' JSON written by PostgreSQL, the twin of src/db/sqlite/queries/message-json.ts: a
 * record of GET /accounts/messages (listRecordJson) and a v2 Message row (messageRowJson) as one
 * text per row, joined by `||` (`concat` looks up the output function of each of its arguments on
 * every row, which costs more than the copies `||` makes). Every piece is text and never null.
 * `to_json(text)` escapes a string as JSON.stringify does (UTF-8 holds no lone surrogate);
 * test/db/listing-json-sql.property.test.ts holds both texts byte for byte to the domain views.
 *
 * `m` is the alias of the messages table (or of a subquery with its columns) in the query; the
 * account's email and plan are bound already written as JSON strings (accountJson), as the
 * placeholders `email` and `plan`.
 */
import { type SQL, sql } from 'drizzle-orm';
import { jsonString } from '../../../domain/json-text.ts';
import type { AccountFacts } from '../../../domain/views.ts';

/** Literal text, or an SQL expression written in its place (as text). */
type Piece = string | SQL;

function joinedSql(pieces: Piece[]): SQL {
  const args = pieces.map((piece) => (typeof piece === 'string' ? sql.raw(`'${piece.replaceAll("'", "''")}'`) : piece));
  return sql`(${sql.join(args, sql` || `)})`;
}

const raw = (text: string) => sql.raw(text);
const email = sql`${sql.placeholder('email')}::text`;
const plan = sql`${sql.placeholder('plan')}::text`;
const quoted = (expression: string) => raw(`to_json(${expression})::text`);
const quotedOrNull = (expression: string) => raw(`coalesce(to_json(${expression})::text, 'null')`);
/** A nullable flag or number column as a template literal writes it: its text, or null. */
const orNull = (expression: string) => raw(`coalesce(${expression}::text, 'null')`);

/** The epoch milliseconds' remainder and whole seconds, rounded down as toSecondsNanos rounds them. */
const millisOf = (ms: string) => `((${ms} % 1000 + 1000) % 1000)`;
const secondsOf = (ms: string) => `((${ms} - ${millisOf(ms)}) / 1000)`;

/** The first millisecond of the year 1: PostgreSQL writes earlier years as BC. */
const YEAR_ONE_MS = -62_135_596_800_000;
/** Days in 400 Gregorian years: adding them keeps the month, the day and the time. */
const DAYS_OF_400_YEARS = 146_097;

/** toIso (Date.prototype.toISOString) for the years 0000-9999, between quotes. */
function iso(ms: string): Piece[] {
  const at = `(timestamp 'epoch' + ${secondsOf(ms)} * interval '1 second' + ${millisOf(ms)} * interval '1 millisecond')`;
  const time = '-MM-DD"T"HH24:MI:SS.MS"Z"';
  return [
    '"',
    raw(
      `case when ${ms} >= ${YEAR_ONE_MS} then to_char(${at}, 'YYYY${time}') ` +
        `else '0000' || to_char(${at} + interval '${DAYS_OF_400_YEARS} days', '${time}') end`,
    ),
    '"',
  ];
}

function secondsNanos(ms: string): Piece[] {
  return ['{"_seconds":', raw(`${secondsOf(ms)}::text`), ',"_nanoseconds":', raw(`(${millisOf(ms)} * 1000000)::text`), '}'];
}

/** A JSON array's strings, each written by to_json, each followed by a comma; '' when the array is null or empty. */
function elementsSql(jsonbArray: string): string {
  return (
    `case when jsonb_typeof(${jsonbArray}) = 'array' then coalesce((select string_agg(to_json(e.value)::text || ',', '' order by e.n) ` +
    `from jsonb_array_elements_text(${jsonbArray}) with ordinality as e(value, n)), '') else '' end`
  );
}

/** Stored recipients as JSON text: the array, or [] for none. */
const recipientsJson = (m: string) => `('[' || rtrim(${elementsSql(`${m}.recipients`)}, ',') || ']')`;

/** The values of the placeholders `email` and `plan`: the account's, written as JSON strings. */
export function accountJson(account: AccountFacts): { email: string; plan: string } {
  return { email: jsonString(account.email), plan: jsonString(account.plan) };
}

/** The record of GET /accounts/messages: listRecordJson. */
export function listRecordSql(m: string): SQL {
  const handle = quoted(`${m}.handle`);
  const line = quoted(`${m}.line_number`);
  const users = `case when ${m}.is_outbound and ${m}.message_type = 'group' then ${recipientsJson(m)} else to_json(${m}.number)::text end`;
  const sendStyle = quoted(`${m}.send_style`);
  const type = quoted(`${m}.message_type`);
  const callbackUrl = quoted(`coalesce(${m}.status_callback, '')`);
  return joinedSql([
    '{"uuid":',
    handle,
    ',"message_handle":',
    handle,
    ',"date":',
    ...iso(`${m}.date_sent`),
    ',"content":',
    quoted(`${m}.content`),
    ',"media_url":',
    quoted(`${m}.media_url`),
    ',"number":',
    raw(users),
    ',"to_number":',
    raw(`case when ${m}.is_outbound then ${users} else to_json(${m}.line_number)::text end`),
    ',"from_number":',
    raw(`case when ${m}.is_outbound then to_json(${m}.line_number)::text else to_json(${m}.number)::text end`),
    ',"is_outbound":',
    raw(`${m}.is_outbound::text`),
    ',"accountEmail":',
    email,
    ',"status":',
    quoted(`${m}.status`),
    ',"error_code":',
    orNull(`${m}.error_code`),
    ',"error_message":',
    quotedOrNull(`${m}.error_message`),
    ',"error_detail":',
    quotedOrNull(`${m}.error_detail`),
    ',"was_downgraded":',
    orNull(`${m}.was_downgraded`),
    ',"allowSMS":true,"allow_sms":true,"sendStyle":',
    sendStyle,
    ',"send_style":',
    sendStyle,
    ',"type":',
    type,
    ',"message_type":',
    type,
    ',"callbackURL":',
    callbackUrl,
    ',"callback_url":',
    callbackUrl,
    ',"row_id":null,"date_sent":',
    ...secondsNanos(`${m}.date_sent`),
    ',"date_updated":',
    ...secondsNanos(`${m}.date_updated`),
    ',"phoneID":',
    line,
    ',"group_id":',
    quoted(`coalesce(${m}.group_id, '')`),
    '}',
  ]);
}

/**
 * participantsOf: a group's members (the recipients of a group send), else the end user; the line
 * last. `members` is the group's members as elementsSql writes them.
 */
function participantsSql(m: string, members: string): string {
  const line = `to_json(${m}.line_number)::text`;
  return (
    `case when ${m}.message_type = 'group' and ${m}.group_id is not null then ` +
    `'[' || case when ${m}.is_outbound then ${elementsSql(`${m}.recipients`)} else coalesce(${members}, '') end || ${line} || ']' ` +
    `else '[' || to_json(${m}.number)::text || ',' || ${line} || ']' end`
  );
}

/**
 * A v2 Message row: messageRowJson. `group` is the alias of the message's group (null when it has
 * none), with its display name and its members as `members` (participantsSql).
 */
export function messageRowSql(m: string, group: string): SQL {
  const line = quoted(`${m}.line_number`);
  const endUser = `case when ${m}.is_outbound and ${m}.message_type = 'group' then '""' else to_json(${m}.number)::text end`;
  const errorDetail = quotedOrNull(`${m}.error_detail`);
  const replied = `to_json(${m}.reply_to_handle)::text`;
  const replyTo =
    `case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || ` +
    `case when ${m}.reply_to_part_index is null then '' else ',"part_index":' || ${m}.reply_to_part_index end || '}' end`;
  const emptyIsNull = (column: string) => raw(`case when ${column} = '' then 'null' else to_json(${column})::text end`);
  return joinedSql([
    '{"accountEmail":',
    email,
    ',"content":',
    quoted(`${m}.content`),
    ',"date_sent":',
    ...iso(`${m}.date_sent`),
    ',"date_updated":',
    ...iso(`${m}.date_updated`),
    ',"error_code":',
    orNull(`${m}.error_code`),
    ',"error_detail":',
    errorDetail,
    ',"error_message":',
    quotedOrNull(`${m}.error_message`),
    ',"error_reason":',
    errorDetail,
    ',"from_number":',
    raw(`case when ${m}.is_outbound then to_json(${m}.line_number)::text else to_json(${m}.number)::text end`),
    ',"group_display_name":',
    quotedOrNull(`${group}.display_name`),
    ',"group_id":',
    quotedOrNull(`${m}.group_id`),
    ',"is_outbound":',
    raw(`${m}.is_outbound::text`),
    ',"media_url":',
    emptyIsNull(`${m}.media_url`),
    ',"message_handle":',
    quoted(`${m}.handle`),
    ',"message_type":',
    quoted(`${m}.message_type`),
    ',"number":',
    raw(endUser),
    ',"opted_out":',
    raw(`${m}.opted_out::text`),
    ',"participants":',
    raw(participantsSql(m, `${group}.members`)),
    ',"plan":',
    plan,
    ',"reply_to":',
    raw(replyTo),
    ',"seat_id":',
    quotedOrNull(`${m}.seat_id`),
    ',"send_style":',
    emptyIsNull(`${m}.send_style`),
    ',"sendblue_number":',
    line,
    ',"sender_email":null,"service":"',
    raw(`case when ${m}.was_downgraded then 'SMS' else 'iMessage' end`),
    '","status":',
    quoted(`${m}.status`),
    ',"thread_originator":',
    raw(`case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || '}' end`),
    ',"to_number":',
    raw(`case when ${m}.is_outbound then ${endUser} else to_json(${m}.line_number)::text end`),
    ',"was_downgraded":',
    raw(`coalesce(${m}.was_downgraded, false)::text`),
    '}',
  ]);
}

/** The members of group `g` (a row of groups) as participantsSql takes them, in the order they were added. */
export function groupMembersSql(g: string): string {
  return `(select string_agg(to_json(gm.number)::text || ',', '' order by gm.added_at, gm.number) from group_members gm where gm.group_id = ${g}.id)`;
}
