/**
 * A large database, fast: a skeleton made through the services (the account, its lines, contacts,
 * pins and groups, one real send each), then N messages copied from the skeleton's rows by one
 * INSERT ... SELECT per batch over a recursive counter, each with its status events, one
 * transaction per batch. Copying real rows keeps every column the services write, including
 * columns added after this script was written.
 *
 * Seeding a million messages takes a minute, so the result is kept in the temp directory under a
 * key of the migrations, this file and the counts, and copied for each run.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDatabase } from '../src/db/sqlite/connection.ts';
import { createAccount } from '../src/services/accounts.ts';
import type { ServiceDeps } from '../src/services/deps.ts';
import { recordHandover } from '../src/services/handover.ts';
import { sendGroupMessage, sendMessage } from '../src/services/send-message.ts';
import { openBenchDeps } from './deps.ts';
import { REPO_ROOT } from './processes.ts';

export type SeedPlan = { messages: number; endUsers: number; groups: number };

/** What the load scripts need to know about the seeded account. */
export type SeededAccount = {
  apiKeyId: string;
  apiSecret: string;
  /** End users with a one-to-one conversation (and, for some, groups). */
  numbers: string[];
  contactIds: string[];
  groupIds: string[];
  /** Newest seeded date_sent: listings filtered by from_date look back from here. */
  lastDateSent: number;
  messages: number;
  /** The database file's size right after seeding (pages in use), in bytes. */
  bytes: number;
};

const BATCH = 100_000;
/** One message a second, ending a day ago: listings by date find long, dense histories. */
const SPACING_MS = 1_000;
/** A quarter of single messages are inbound (RECEIVED); outbound ones end, by i % 10, in the status each reached. */
const INBOUND = `t.message_type = 'message' and i % 4 = 0`;
const STATUS = `case when ${INBOUND} then 'RECEIVED' else case i % 10 when 0 then 'SENT' when 9 then 'ERROR' when 7 then 'READ' when 8 then 'READ' else 'DELIVERED' end end`;

/** End user i: +1 646 2xx xxxx, valid and distinct from the numbers the load scripts send to. */
export function endUserNumber(i: number): string {
  return `+1646${String(2_000_000 + i)}`;
}

async function seedSkeleton(deps: ServiceDeps, plan: SeedPlan) {
  const created = await createAccount(deps, { email: 'bench@example.com', plan: 'sapphire' });
  const account = (await deps.store.accounts.findByEmail('bench@example.com'))!;
  const numbers = Array.from({ length: plan.endUsers }, (_, i) => endUserNumber(i));
  const handles: string[] = [];
  for (const number of numbers) {
    handles.push((await sendMessage(deps, account, { number, content: `hello ${number}` })).body.message_handle);
  }
  const groupIds: string[] = [];
  for (let g = 0; g < plan.groups; g += 1) {
    const members = [numbers[g]!, numbers[(g + 7) % numbers.length]!, numbers[(g + 13) % numbers.length]!];
    const { body } = await sendGroupMessage(deps, account, { numbers: members, content: `group ${g}` });
    handles.push(body.message_handle);
    groupIds.push((body as { group_id: string }).group_id);
  }
  // Handed over, so the server's courier has nothing to resume.
  for (const handle of handles) await recordHandover(deps, handle, { transportHandle: handle });
  return { created, account, numbers, groupIds };
}

/** SQL for a UUID of version 7 made at `msExpression`, as src/services/ids.ts makes them for new rows. */
function timeOrderedUuidSql(msExpression: string): string {
  const ms = `printf('%012x', ${msExpression})`;
  const random = (hexDigits: number) => `substr(lower(hex(randomblob(${Math.ceil(hexDigits / 2)}))), 1, ${hexDigits})`;
  return `substr(${ms}, 1, 8) || '-' || substr(${ms}, 9, 4) || '-7' || ${random(3)} || '-a' || ${random(3)} || '-' || ${random(12)}`;
}

/**
 * Inserts `count` messages after the skeleton, cycling over its rows as templates: every end
 * user's conversation and every group grows, a quarter of single messages are inbound.
 */
function bulkInsert(client: import('better-sqlite3').Database, count: number, firstDate: number): void {
  const columns = (client.prepare(`select name from pragma_table_info('messages')`).all() as { name: string }[])
    .map((row) => row.name)
    .filter((name) => name !== 'id');
  const sentAt = `${firstDate} + i * ${SPACING_MS}`;
  const overrides: Record<string, string> = {
    handle: timeOrderedUuidSql(sentAt),
    status: STATUS,
    is_outbound: `case when ${INBOUND} then 0 else 1 end`,
    content: `'seeded message ' || i`,
    transport_handle: 'null',
    handed_over_at: sentAt,
    date_sent: sentAt,
    date_updated: `${firstDate} + i * ${SPACING_MS} + 5000`,
    error_code: `case when ${STATUS} = 'ERROR' then 3000 else null end`,
  };
  client.exec(`create temp table bench_templates as select row_number() over (order by id) - 1 as k, * from messages`);
  const templates = (client.prepare('select count(*) as n from bench_templates').get() as { n: number }).n;
  const insertMessages = client.prepare(`
    with recursive n(i) as (select cast(? as integer) union all select i + 1 from n where i < cast(? as integer))
    insert into messages (${columns.join(', ')})
    select ${columns.map((column) => overrides[column] ?? `t.${column}`).join(', ')}
    from n join bench_templates t on t.k = n.i % ${templates}`);
  // Every message has its QUEUED event from the send and the event of the status it reached.
  const insertEvents = client.prepare(`
    insert into status_events (id, message_handle, status, source, applied, implied, received_at)
    select 'evt_' || ${timeOrderedUuidSql('date_sent')}, handle, 'QUEUED', 'api', 1, 0, date_sent from messages where id > ? and is_outbound = 1
    union all
    select 'evt_' || ${timeOrderedUuidSql('date_updated')}, handle, status, 'bench', 1, 0, date_updated from messages where id > ? and status <> 'QUEUED'`);
  for (let from = 0; from < count; from += BATCH) {
    const to = Math.min(count, from + BATCH) - 1;
    client.transaction(() => {
      const lastId = (client.prepare('select max(id) as id from messages').get() as { id: number }).id;
      insertMessages.run(from, to);
      insertEvents.run(lastId, lastId);
    })();
  }
  client.exec('drop table bench_templates');
}

function cacheKey(plan: SeedPlan): string {
  const hash = createHash('sha256');
  const migrations = join(REPO_ROOT, 'migrations');
  for (const name of readdirSync(migrations)
    .filter((file) => file.endsWith('.sql'))
    .sort())
    hash.update(readFileSync(join(migrations, name)));
  hash.update(readFileSync(new URL(import.meta.url)));
  hash.update(JSON.stringify(plan));
  return hash.digest('hex').slice(0, 16);
}

/** Seeds a fresh database file (or copies the cached one) at `file`; returns what the load scripts need. */
export async function seedDatabase(
  file: string,
  plan: SeedPlan,
  options: { fresh?: boolean; log?: (line: string) => void } = {},
): Promise<SeededAccount> {
  const log = options.log ?? (() => {});
  const cacheDir = join(tmpdir(), 'textrelay-bench-cache');
  const cached = join(cacheDir, `seed-${cacheKey(plan)}.db`);
  const sidecar = `${cached}.json`;
  if (options.fresh || !existsSync(sidecar)) {
    mkdirSync(cacheDir, { recursive: true });
    const building = `${cached}.building`;
    rmSync(building, { force: true });
    const started = performance.now();
    const { db, deps } = openBenchDeps(building);
    const { created, numbers, groupIds } = await seedSkeleton(deps, plan);
    const client = db.$client;
    const lastDateSent = Date.now() - 86_400_000;
    const skeleton = (client.prepare('select count(*) as n from messages').get() as { n: number }).n;
    bulkInsert(client, plan.messages - skeleton, lastDateSent - (plan.messages - skeleton) * SPACING_MS);
    client.pragma('wal_checkpoint(TRUNCATE)');
    const { bytes } = client
      .prepare('select (page_count - freelist_count) * page_size as bytes from pragma_page_count, pragma_freelist_count, pragma_page_size')
      .get() as { bytes: number };
    const contactIds = (client.prepare('select id from contacts order by phone').all() as { id: string }[]).map((row) => row.id);
    closeDatabase(db);
    renameSync(building, cached);
    const seeded: SeededAccount = {
      apiKeyId: created.api_key_id,
      apiSecret: created.api_secret_key,
      numbers,
      contactIds,
      groupIds,
      lastDateSent,
      messages: plan.messages,
      bytes,
    };
    writeFileSync(sidecar, JSON.stringify(seeded));
    log(`seeded ${plan.messages} messages in ${((performance.now() - started) / 1000).toFixed(1)} s (${(bytes / 1e6).toFixed(0)} MB)`);
  } else {
    log(`reusing the seeded database ${cached}`);
  }
  copyFileSync(cached, file);
  return JSON.parse(readFileSync(sidecar, 'utf8')) as SeededAccount;
}
