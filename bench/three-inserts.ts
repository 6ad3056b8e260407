/**
 * The PostgreSQL floor's unit of work, shared by bench/pg-drivers.ts and the floor line of
 * `npm run bench -- --backend postgres`: a transaction of three one-row inserts shaped like a send
 * (message, status event, outbox row), through postgres.js.
 */
import type postgres from 'postgres';

/** The three tables it writes to, in the schema first on the connection's search_path. */
export const THREE_INSERT_TABLES = `
  create table messages (id bigserial primary key, handle text not null unique, account_id text not null,
    content text not null, status text not null, date_sent bigint not null);
  create table status_events (id text primary key, message_handle text not null, status text not null, received_at bigint not null);
  create table webhook_deliveries (seq bigserial primary key, message_handle text not null, payload text not null, state text not null);
`;

/** One transaction of the three inserts for a new `handle`. */
export async function insertThree(sql: postgres.Sql, handle: string): Promise<void> {
  // Returning the three queries unawaited pipelines them: one round trip for the transaction's body.
  await sql.begin((tx) => [
    tx`insert into messages (handle, account_id, content, status, date_sent) values (${handle}, 'acct', 'hello', 'QUEUED', ${Date.now()})`,
    tx`insert into status_events (id, message_handle, status, received_at) values (${`e-${handle}`}, ${handle}, 'QUEUED', ${Date.now()})`,
    tx`insert into webhook_deliveries (message_handle, payload, state) values (${handle}, '{"status":"QUEUED"}', 'pending')`,
  ]);
}
