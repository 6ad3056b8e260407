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

/** The epoch milliseconds' remainder and whole seconds, rounded down as toSecondsNanos rounds them. */
const millisOf = (ms: string) => `((${ms} % 1000 + 1000) % 1000)`;
const secondsOf = (ms: string) => `((${ms} - ${millisOf(ms)}) / 1000)`;

/** toIso (Date.prototype.toISOString) for the years 0000-9999. */
function iso(ms: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%S', ${secondsOf(ms)}, 'unixepoch') || printf('.%03dZ', ${millisOf(ms)})`;
}

function secondsNanos(ms: string): string {
  return `'{"_seconds":' || ${secondsOf(ms)} || ',"_nanoseconds":' || (${millisOf(ms)} * 1000000) || '}'`;
}

/** A nullable flag column as `${flag}` writes it: true, false or null. */
const flagText = (column: string) => `case ${column} when 1 then 'true' when 0 then 'false' else 'null' end`;

/** Stored recipients are JSON.stringify of the array, or of null: JSON.parse and JSON.stringify again give the same text. */
const recipientsJson = (m: string) => `coalesce(nullif(${m}.recipients, 'null'), '[]')`;

/** The record of GET /accounts/messages: listRecordJson. */
export function listRecordSql(m: string): string {
  const handle = `json_quote(${m}.handle)`;
  const line = `json_quote(${m}.line_number)`;
  const users = `case when ${m}.is_outbound and ${m}.message_type = 'group' then ${recipientsJson(m)} else json_quote(${m}.number) end`;
  const sendStyle = `json_quote(${m}.send_style)`;
  const type = `json_quote(${m}.message_type)`;
  const callbackUrl = `json_quote(ifnull(${m}.status_callback, ''))`;
  return [
    `'{"uuid":' || ${handle} || ',"message_handle":' || ${handle} || ',"date":"' || ${iso(`${m}.date_sent`)}`,
    `'","content":' || json_quote(${m}.content) || ',"media_url":' || json_quote(${m}.media_url) || ',"number":' || ${users}`,
    `',"to_number":' || case when ${m}.is_outbound then ${users} else ${line} end`,
    `',"from_number":' || case when ${m}.is_outbound then ${line} else json_quote(${m}.number) end`,
    `',"is_outbound":' || ${flagText(`${m}.is_outbound`)} || ',"accountEmail":' || :email || ',"status":' || json_quote(${m}.status)`,
    `',"error_code":' || json_quote(${m}.error_code) || ',"error_message":' || json_quote(${m}.error_message)`,
    `',"error_detail":' || json_quote(${m}.error_detail) || ',"was_downgraded":' || ${flagText(`${m}.was_downgraded`)}`,
    `',"allowSMS":true,"allow_sms":true,"sendStyle":' || ${sendStyle} || ',"send_style":' || ${sendStyle} || ',"type":' || ${type} || ',"message_type":' || ${type}`,
    `',"callbackURL":' || ${callbackUrl} || ',"callback_url":' || ${callbackUrl}`,
    `',"row_id":null,"date_sent":' || ${secondsNanos(`${m}.date_sent`)} || ',"date_updated":' || ${secondsNanos(`${m}.date_updated`)}`,
    `',"phoneID":' || ${line} || ',"group_id":' || json_quote(ifnull(${m}.group_id, '')) || '}'`,
  ].join(' || ');
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
  const line = `json_quote(${m}.line_number)`;
  const endUser = `case when ${m}.is_outbound and ${m}.message_type = 'group' then '""' else json_quote(${m}.number) end`;
  const errorDetail = `json_quote(${m}.error_detail)`;
  const replied = `json_quote(${m}.reply_to_handle)`;
  const replyTo =
    `case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || ` +
    `case when ${m}.reply_to_part_index is null then '' else ',"part_index":' || ${m}.reply_to_part_index end || '}' end`;
  const groupName = `json_quote((select g.display_name from groups g where g.id = ${m}.group_id and g.account_id = ${m}.account_id))`;
  const orNull = (column: string) => `case when ${column} = '' then 'null' else json_quote(${column}) end`;
  return [
    `'{"accountEmail":' || :email || ',"content":' || json_quote(${m}.content)`,
    `',"date_sent":"' || ${iso(`${m}.date_sent`)} || '","date_updated":"' || ${iso(`${m}.date_updated`)}`,
    `'","error_code":' || json_quote(${m}.error_code) || ',"error_detail":' || ${errorDetail}`,
    `',"error_message":' || json_quote(${m}.error_message) || ',"error_reason":' || ${errorDetail}`,
    `',"from_number":' || case when ${m}.is_outbound then ${line} else json_quote(${m}.number) end`,
    `',"group_display_name":' || ${groupName} || ',"group_id":' || json_quote(${m}.group_id)`,
    `',"is_outbound":' || ${flagText(`${m}.is_outbound`)} || ',"media_url":' || ${orNull(`${m}.media_url`)}`,
    `',"message_handle":' || json_quote(${m}.handle) || ',"message_type":' || json_quote(${m}.message_type) || ',"number":' || ${endUser}`,
    `',"opted_out":' || ${flagText(`${m}.opted_out`)} || ',"participants":' || ${participantsSql(m)} || ',"plan":' || :plan`,
    `',"reply_to":' || ${replyTo} || ',"seat_id":' || json_quote(${m}.seat_id)`,
    `',"send_style":' || ${orNull(`${m}.send_style`)} || ',"sendblue_number":' || ${line}`,
    `',"sender_email":null,"service":"' || case when ${m}.was_downgraded = 1 then 'SMS' else 'iMessage' end || '","status":' || json_quote(${m}.status)`,
    `',"thread_originator":' || case when ${m}.reply_to_handle is null then 'null' else '{"message_handle":' || ${replied} || '}' end`,
    `',"to_number":' || case when ${m}.is_outbound then ${endUser} else ${line} end`,
    `',"was_downgraded":' || case when ${m}.was_downgraded = 1 then 'true' else 'false' end || '}'`,
  ].join(' || ');
}
