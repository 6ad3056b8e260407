/**
 * The places the official SDK is pointed at in these tests: a sandbox `textrelay serve`, and a
 * relay (upstream transport) in front of a second textrelay acting as the provider. Each world
 * has two accounts (the second only to prove isolation) and a receiver for webhooks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SendblueAPI from 'sendblue';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { INGEST_SECRET } from '../helpers/ingest.ts';
import { type Credentials, createAccount, startServerOnFreePort } from '../helpers/live.ts';
import { killAll, type RunningServer, startServer } from '../helpers/process.ts';

export const SLOW = 120_000;
export const STEP_MS = 100;

export type World = {
  name: 'sandbox' | 'relay';
  /** The server the SDK talks to. */
  server: RunningServer;
  client: SendblueAPI;
  credentials: Credentials;
  /** Another account on the same server. */
  stranger: SendblueAPI;
  strangerCredentials: Credentials;
  receiver: Receiver;
  close(): Promise<void>;
};

export function sdkClient(server: RunningServer, credentials: Credentials): SendblueAPI {
  return new SendblueAPI({ apiKey: credentials.api_key_id, apiSecret: credentials.api_secret_key, baseURL: server.url, timeout: 20_000 });
}

/** The world around a started server: SDK clients for both accounts, a receiver, and what to clean up. */
async function worldOf(
  name: World['name'],
  server: RunningServer,
  accounts: { credentials: Credentials; strangerCredentials: Credentials },
  dir: string,
): Promise<World> {
  const receiver = await startReceiver();
  return {
    name,
    server,
    client: sdkClient(server, accounts.credentials),
    stranger: sdkClient(server, accounts.strangerCredentials),
    ...accounts,
    receiver,
    async close() {
      await receiver.close();
      await killAll();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const COMMON_ENV = {
  TEXTRELAY_SANDBOX_STEP_MS: String(STEP_MS),
  TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,2,5',
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
  LOG_LEVEL: 'warn',
};

export async function startSandboxWorld(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-sdk-'));
  const db = join(dir, 'sandbox.db');
  const credentials = await createAccount(db, 'sdk@example.com', '2');
  const strangerCredentials = await createAccount(db, 'stranger@example.com', '1');
  const server = await startServerOnFreePort(
    (port) => ({ ...COMMON_ENV, TEXTRELAY_DB: db, TEXTRELAY_PUBLIC_URL: `http://127.0.0.1:${port}` }),
    SLOW,
  );
  return worldOf('sandbox', server, { credentials, strangerCredentials }, dir);
}

/** A relay R whose accounts use the real lines of one provider account on B (a sandbox textrelay). */
export async function startRelayWorld(): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-sdk-relay-'));
  const dbR = join(dir, 'relay.db');
  const dbB = join(dir, 'provider.db');
  const provider = await createAccount(dbB, 'relay@provider.example.com', '3');
  const credentials = await createAccount(dbR, 'sdk@tenant.example.com', `${provider.numbers[0]},${provider.numbers[1]}`);
  const strangerCredentials = await createAccount(dbR, 'stranger@tenant.example.com', provider.numbers[2]!);
  const b = await startServer([], { ...COMMON_ENV, PORT: '0', TEXTRELAY_DB: dbB }, SLOW);
  const server = await startServerOnFreePort(
    (port) => ({
      ...COMMON_ENV,
      TEXTRELAY_DB: dbR,
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_UPSTREAM_URL: b.url,
      TEXTRELAY_UPSTREAM_KEY_ID: provider.api_key_id,
      TEXTRELAY_UPSTREAM_SECRET: provider.api_secret_key,
      TEXTRELAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
      LOG_LEVEL: 'info',
    }),
    SLOW,
  );
  await server.waitForLine(/receive webhook registered upstream/, SLOW);
  return worldOf('relay', server, { credentials, strangerCredentials }, dir);
}
