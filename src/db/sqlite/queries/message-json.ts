/**
 * The listings' JSON written by SQLite: a record of GET /accounts/messages (listRecordJson) and a v2
 * Message row (messageRowJson) as one text per row, so that a page is read as 50 strings instead of
 * 50 rows of 27 values mapped and written again in JavaScript. `json_quote` escapes a string as
 * JSON.stringify does (UTF-8 holds no lone surrogate); test/db/listing-json-sql.property.test.ts
 * holds both texts byte for byte to the domain views.
 *
 * `m` is the alias of the messages table in the query; `?email` and `?plan` are the account's
 * JSON-quoted email and plan, bound as named parameters.
 */

/** Literal text, or an SQL expression written in its place (as text, or with a printf conversion such as `%d`). */
type Piece = string | { sql: string; as?: '%d' | '%03d' };

/** One printf over the whole record: SQLite writes it into one buffer, where `||` copies the text so far at every step. */
function printfSql(pieces: Piece[]): string {
  let format = '';
  const args: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      format += piece.replaceAll('%', '%%');
    } else {
      format += piece.as ?? '%s';
      args.push(piece.sql);
    }
  }
  return `printf('${format.replaceAll("'", "''")}', ${args.join(', ')})`;
}

const text = (sql: string): Piece => ({ sql });
const quoted = (sql: string): Piece => ({ sql: `json_quote(${sql})` });

/** The epoch milliseconds' remainder and whole seconds, rounded down as toSecondsNanos rounds them. */
const millisOf = (ms: string) => `((${ms} % 1000 + 1000) % 1000)`;
const secondsOf = (ms: string) => `((${ms} - ${millisOf(ms)}) / 1000)`;

/** toIso (Date.prototype.toISOString) for the years 0000-9999, between quotes. */
function iso(ms: string): Piece[] {
  return ['"', text(`strftime('%Y-%m-%dT%H:%M:%S', ${secondsOf(ms)}, 'unixepoch')`), '.', { sql: millisOf(ms), as: '%03d' }, 'Z"'];
}

function secondsNanos(ms: string): Piece[] {
  return ['{"_seconds":', { sql: secondsOf(ms), as: '%d' }, ',"_nanoseconds":', { sql: `${millisOf(ms)} * 1000000`, as: '%d' }, '}'];
}

/** A nullable flag column as `${flag}` writes it: true, false or null. */
const flagText = (column: string) => text(`case ${column} when 1 then 'true' when 0 then 'false' else 'null' end`);

/** Stored recipients are JSON.stringify of the array, or of null: JSON.parse and JSON.stringify again give the same text. */
const recipientsJson = (m: string) => `coalesce(nullif(${m}.recipients, 'null'), '[]')`;

/** The record of GET /accounts/messages: listRecordJson. */
export function listRecordSql(m: string): string {
  const handle = quoted(`${m}.handle`);
  const line = quoted(`${m}.line_number`);
  const users = `case when ${m}.is_outbound and ${m}.message_type = 'group' then ${recipientsJson(m)} else json_quote(${m}.number) end`;
  const sendStyle = quoted(`${m}.send_style`);
  const type = quoted(`${m}.message_type`);
  const callbackUrl = quoted(`ifnull(${m}.status_callback, '')`);
  return printfSql([
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
    text(users),
    ',"to_number":',
    text(`case when ${m}.is_outbound then ${users} else json_quote(${m}.line_number) end`),
    ',"from_number":',
    text(`case when ${m}.is_outbound then json_quote(${m}.line_number) else json_quote(${m}.number) end`),
    ',"is_outbound":',
    flagText(`${m}.is_outbound`),
    ',"accountEmail":',
    text(':email'),
    ',"status":',
    quoted(`${m}.status`),
    ',"error_code":',
    quoted(`${m}.error_code`),
    ',"error_message":',
    quoted(`${m}.error_message`),
    ',"error_detail":',
    quoted(`${m}.error_detail`),
    ',"was_downgraded":',
    flagText(`${m}.was_downgraded`),
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
    quoted(`ifnull(${m}.group_id, '')`),
    '}',
  ]);
}

/** participantsOf: a group's members (the recipients of a group send), else the end user; the line last. */
function participantsSql(m: string): string {
  const line = `json_quote(${m}.line_number)`;
  const recipients = recipientsJson(m);
  const sentTo = `case when ${recipients} = '[]' then '[' || ${line} || ']' else substr(${recipients}, 1, length(${recipients}) - 1) || ',' || ${line} || ']' end`;
  const members = `(select group_concat(json_quote(gm.number), ',' order by gm.added_at, gm.number) || ',' from group_members gm where gm.group_id = ${m}.group_id)`;
  return (
    `case when ${m}.message_type = 'group' and ${m}.group_id is not null then ` +
    `case when ${m}.is_outbound then ${sentTo} else '[' || coalesce(${members}, '') || ${line} || ']' end ` +
    `else '[' || json_quote(${m}.number) || ',' || ${line} || ']' end`
  );
}

/** A v2 Message row: messageRowJson, the group's name read with it. */
export function messageRowSql(m: string): string {
  const line = quoted(`${m}.line_number`);
  const endUser = `case when ${m}.is_outbound and ${m}.message_type = 'group' then '""' else json_quote(${m}.number) end`;
  const errorDetail = quoted(`${m}.error_detail`);
  const replied = `json_quote(${m}.reply_to_handle)`;
  const replyTo =
    `case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || ` +
    `case when ${m}.reply_to_part_index is null then '' else ',"part_index":' || ${m}.reply_to_part_index end || '}' end`;
  const groupName = `(select g.display_name from groups g where g.id = ${m}.group_id and g.account_id = ${m}.account_id)`;
  const orNull = (column: string) => text(`case when ${column} = '' then 'null' else json_quote(${column}) end`);
  return printfSql([
    '{"accountEmail":',
    text(':email'),
    ',"content":',
    quoted(`${m}.content`),
    ',"date_sent":',
    ...iso(`${m}.date_sent`),
    ',"date_updated":',
    ...iso(`${m}.date_updated`),
    ',"error_code":',
    quoted(`${m}.error_code`),
    ',"error_detail":',
    errorDetail,
    ',"error_message":',
    quoted(`${m}.error_message`),
    ',"error_reason":',
    errorDetail,
    ',"from_number":',
    text(`case when ${m}.is_outbound then json_quote(${m}.line_number) else json_quote(${m}.number) end`),
    ',"group_display_name":',
    quoted(groupName),
    ',"group_id":',
    quoted(`${m}.group_id`),
    ',"is_outbound":',
    flagText(`${m}.is_outbound`),
    ',"media_url":',
    orNull(`${m}.media_url`),
    ',"message_handle":',
    quoted(`${m}.handle`),
    ',"message_type":',
    quoted(`${m}.message_type`),
    ',"number":',
    text(endUser),
    ',"opted_out":',
    flagText(`${m}.opted_out`),
    ',"participants":',
    text(participantsSql(m)),
    ',"plan":',
    text(':plan'),
    ',"reply_to":',
    text(replyTo),
    ',"seat_id":',
    quoted(`${m}.seat_id`),
    ',"send_style":',
    orNull(`${m}.send_style`),
    ',"sendblue_number":',
    line,
    ',"sender_email":null,"service":"',
    text(`case when ${m}.was_downgraded = 1 then 'SMS' else 'iMessage' end`),
    '","status":',
    quoted(`${m}.status`),
    ',"thread_originator":',
    text(`case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || '}' end`),
    ',"to_number":',
    text(`case when ${m}.is_outbound then ${endUser} else json_quote(${m}.line_number) end`),
    ',"was_downgraded":',
    text(`case when ${m}.was_downgraded = 1 then 'true' else 'false' end`),
    '}',
  ]);
}
