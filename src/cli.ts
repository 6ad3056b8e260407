import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { CreateAccountFlags, LinesFlags, UpstreamFlags } from './cli/account-flags.ts';
import { healthcheckCommand } from './cli/healthcheck.ts';
import { commandHelp, commandUsage, isCommand, overview, unexpectedFlags } from './cli/help.ts';
import { readSecretFlag, refuseSecretsOnCommandLine } from './cli/secret-flags.ts';
import { statusCommand } from './cli/status.ts';
import { tailCommand } from './cli/tail.ts';
import { UsageError } from './cli/usage-error.ts';
import { webhooksCommand } from './cli/webhooks.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { CARRIERS, type CarrierName, carriersOf } from './domain/carriers.ts';
import { createLogger } from './logger.ts';
import type { Runtime } from './runtime.ts';
import {
  type AccountLines,
  addLines,
  createAccount,
  type LineSummary,
  listAccounts,
  listLines,
  removeLines,
  rotateSecret,
} from './services/accounts.ts';
import { AppError } from './services/app-error.ts';
import { setUpstreamCredentials } from './services/upstream-credentials.ts';
import { StartupError } from './startup-error.ts';

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  transport: { type: 'string' },
  email: { type: 'string' },
  plan: { type: 'string' },
  numbers: { type: 'string' },
  'receive-webhook': { type: 'string' },
  'upstream-key-id': { type: 'string' },
  'upstream-secret': { type: 'string' },
  'upstream-secret-file': { type: 'string' },
  'key-id': { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  carrier: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  content: { type: 'string' },
  'group-id': { type: 'string' },
  'media-url': { type: 'string' },
  failed: { type: 'boolean', default: false },
  force: { type: 'boolean', default: false },
  'failed-since': { type: 'string' },
  before: { type: 'string' },
  since: { type: 'string' },
  id: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function configFrom(flags: Flags): Config {
  return loadConfig(process.env, {
    PORT: flags.port,
    HOST: flags.host,
    // --db names the database whichever variable the environment uses: a file path or a postgres:// URL.
    TEXTRELAY_DB: flags.db,
    TEXTRELAY_DATABASE_URL: flags.db,
    TEXTRELAY_TRANSPORT: flags.transport,
  });
}

const CarrierFlag = z.enum(CARRIERS, { message: `--carrier must be one of ${CARRIERS.join(', ')}` });

/** The carrier of the lines a command adds: --carrier, else the first TEXTRELAY_TRANSPORT names, else none (sandbox, relay). */
function carrierFrom(flags: Flags): CarrierName | undefined {
  const carrier = parseFlags(CarrierFlag.optional(), flags.carrier);
  return carrier ?? carriersOf(configFrom(flags).TEXTRELAY_TRANSPORT)[0];
}

function parseFlags<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new UsageError(result.error.issues.map((issue) => issue.message).join('\n'));
  return result.data;
}

/** Each line with the carrier delivering it: `+14155550123 (twilio)`, `+14155550124 (no carrier)`. */
function describeLines(lines: readonly LineSummary[], separator: string): string {
  return lines.map((line) => `${line.number} (${line.carrier ?? 'no carrier'})`).join(separator);
}

function print(value: unknown, asJson: boolean, human: () => string): void {
  process.stdout.write(asJson ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** The database, the services and the carriers a command runs on; loaded when one needs them, so --help answers at once. */
async function openConfiguredRuntime(config: Config): Promise<Runtime> {
  const { openRuntime } = await import('./runtime.ts');
  return openRuntime(config, createLogger(config.LOG_LEVEL));
}

/** Runs a command against the database and closes it, whatever happens. */
async function withRuntime<T>(flags: Flags, work: (deps: Runtime['deps'], runtime: Runtime) => Promise<T> | T): Promise<T> {
  const runtime = await openConfiguredRuntime(configFrom(flags));
  const { bridgeNotifier } = await import('./notifier-bridging.ts');
  // Servers sharing the database hear what the command wrote: their inbox views refresh at once.
  const bridge = runtime.sharedDatabase && (await bridgeNotifier(runtime.deps, runtime.sharedDatabase, { listen: false }));
  try {
    return await work(runtime.deps, runtime);
  } finally {
    await bridge?.close();
    // A command may have asked a carrier (the numbers `lines add` gives): its connections would hold the process.
    await Promise.allSettled(runtime.carriers.map((carrier) => carrier.stop()));
    await runtime.close();
  }
}

async function linesCommand(action: string | undefined, words: string[], flags: Flags): Promise<void> {
  const email = () => parseFlags(LinesFlags.pick({ email: true }), { email: flags.email }).email;
  const edit = (change: (deps: Runtime['deps'], email: string, numbers: string[]) => Promise<AccountLines>) => {
    const input = parseFlags(LinesFlags, { email: flags.email, numbers: words });
    return withRuntime(flags, (deps) => change(deps, input.email, input.numbers));
  };
  let lines: AccountLines;
  switch (action) {
    case 'list':
      if (words.length > 0) throw new UsageError('textrelay accounts lines list takes no numbers', 'accounts');
      lines = await withRuntime(flags, (deps) => listLines(deps, email()));
      break;
    case 'add': {
      const carrier = carrierFrom(flags);
      lines = await edit((deps, email, numbers) => addLines(deps, email, numbers, carrier));
      break;
    }
    case 'remove':
      lines = await edit((deps, email, numbers) => removeLines(deps, email, numbers, { force: flags.force }));
      break;
    default:
      throw new UsageError(`Unknown accounts lines command: ${action ?? '(none)'}`, 'accounts');
  }
  print(lines, flags.json, () => `Lines of ${lines.email}: ${describeLines(lines.lines, ', ')}`);
}

/** `accounts upstream set`: moves the account to its own provider account. */
async function upstreamCommand(action: string | undefined, words: string[], flags: Flags): Promise<void> {
  if (action !== 'set') throw new UsageError(`Unknown accounts upstream command: ${action ?? '(none)'}`, 'accounts');
  if (words.length > 0) throw new UsageError(`Unexpected argument: ${words[0]}`, 'accounts');
  const input = parseFlags(UpstreamFlags, {
    email: flags.email,
    keyId: flags['key-id'],
    secret: readSecretFlag('secret-file', flags['secret-file']),
  });
  const set = await withRuntime(flags, (deps) => setUpstreamCredentials(deps, input.email, input));
  print(set, flags.json, () => `${set.email} now uses provider account ${set.upstream_key_id}`);
}

async function accountsCommand(action: string | undefined, rest: string[], flags: Flags): Promise<void> {
  if (action === 'lines' || action === 'upstream') {
    await (action === 'lines' ? linesCommand : upstreamCommand)(rest[0], rest.slice(1), flags);
    return;
  }
  if (rest.length > 0) throw new UsageError(`Unexpected argument: ${rest[0]}`, 'accounts');
  switch (action) {
    case 'create': {
      const input = parseFlags(CreateAccountFlags, {
        email: flags.email,
        plan: flags.plan,
        numbers: flags.numbers,
        receiveWebhook: flags['receive-webhook'],
        upstreamKeyId: flags['upstream-key-id'],
        upstreamSecret: readSecretFlag('upstream-secret-file', flags['upstream-secret-file']),
      });
      const upstream =
        input.upstreamKeyId && input.upstreamSecret ? { keyId: input.upstreamKeyId, secret: input.upstreamSecret } : undefined;
      const carrier = carrierFrom(flags);
      const account = await withRuntime(flags, (deps) => createAccount(deps, { ...input, upstream, carrier }));
      print(account, flags.json, () =>
        [
          `Created account ${account.email} (${account.plan}); the secret is shown only now.`,
          `  svc-api-key-id:     ${account.api_key_id}`,
          `  svc-api-secret-key: ${account.api_secret_key}`,
          `  numbers:            ${account.numbers.join(', ')}`,
        ].join('\n'),
      );
      return;
    }
    case 'list': {
      const accounts = await withRuntime(flags, listAccounts);
      print(accounts, flags.json, () =>
        accounts.length === 0
          ? 'No accounts.'
          : accounts.map((a) => `${a.email}\t${a.plan}\t${a.api_key_id}\t${describeLines(a.lines, ',')}`).join('\n'),
      );
      return;
    }
    case 'rotate-secret': {
      const { email } = parseFlags(LinesFlags.pick({ email: true }), { email: flags.email });
      const rotated = await withRuntime(flags, (deps) => rotateSecret(deps, email));
      print(
        rotated,
        flags.json,
        () => `New secret for ${rotated.email} (shown only now):\n  svc-api-secret-key: ${rotated.api_secret_key}`,
      );
      return;
    }
    default:
      throw new UsageError(`Unknown accounts command: ${action ?? '(none)'}`);
  }
}

/** `--help`, `help` and `help COMMAND`: true when help was asked for (and printed). */
function printHelpIfAsked(command: string | undefined, action: string | undefined, help: boolean): boolean {
  if (command !== undefined && command !== 'help' && !help) return false;
  const topic = command === 'help' ? action : command;
  if (topic === undefined) process.stdout.write(overview());
  else if (isCommand(topic)) process.stdout.write(commandHelp(topic));
  else throw new UsageError(`Unknown command: ${topic}`);
  return true;
}

async function main(argv: string[]): Promise<void> {
  const {
    values: flags,
    positionals,
    tokens,
  } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  const [command, action] = positionals;
  if (printHelpIfAsked(command, action, flags.help)) return;
  if (!isCommand(command)) throw new UsageError(`Unknown command: ${command}`);
  const given = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
  refuseSecretsOnCommandLine(given);
  const unexpected = unexpectedFlags(command, given);
  if (unexpected.length > 0)
    throw new UsageError(`textrelay ${command} does not take ${unexpected.map((name) => `--${name}`).join(', ')}`, command);
  switch (command) {
    case 'serve': {
      const config = configFrom(flags);
      // Loaded for serve alone: the HTTP app is most of the start-up time of the other commands.
      const { runServer } = await import('./server.ts');
      return runServer(config);
    }
    case 'migrate': {
      const config = configFrom(flags);
      const { migrateConfiguredDatabase } = await import('./runtime.ts');
      process.stdout.write(`Migrations applied to ${await migrateConfiguredDatabase(config)}\n`);
      return;
    }
    case 'migrate-data': {
      if (action !== undefined) throw new UsageError(`Unexpected argument: ${action}`, 'migrate-data');
      // Loaded for migrate-data alone: it reads every table of both schemas.
      const { migrateDataCommand } = await import('./cli/migrate-data.ts');
      const output = await migrateDataCommand({ from: flags.from, to: flags.to }, configFrom(flags), process.stderr);
      print(output.value, flags.json, () => output.human);
      return;
    }
    case 'accounts':
      return accountsCommand(action, positionals.slice(2), flags);
    case 'inbound': {
      // Loaded for inbound alone: it validates with the HTTP route's schema, which brings in the HTTP stack.
      const { inboundCommand } = await import('./cli/inbound.ts');
      const message = await withRuntime(flags, (deps) => inboundCommand(deps, flags));
      print(message, flags.json, () => message.message_handle);
      return;
    }
    case 'status': {
      const output = await withRuntime(flags, (deps, runtime) => statusCommand(deps, runtime.carriers));
      print(output.value, flags.json, () => output.human);
      return;
    }
    case 'webhooks': {
      const output = await withRuntime(flags, (deps) => webhooksCommand(deps, action, flags, process.stderr));
      print(output.value, flags.json, () => output.human);
      return;
    }
    case 'tail': {
      return tailCommand(await openConfiguredRuntime(configFrom(flags)), flags);
    }
    case 'healthcheck': {
      const { healthy, line } = await healthcheckCommand(configFrom(flags));
      (healthy ? process.stdout : process.stderr).write(`${line}\n`);
      process.exitCode = healthy ? 0 : 1;
      return;
    }
    default: {
      // A command described in cli/help.ts but not run here fails to compile.
      const unhandled: never = command;
      throw new Error(`textrelay ${String(unhandled)} is not implemented`);
    }
  }
}

/** The help to print under a usage error: the command's when the line names one. */
function usageFor(error: UsageError | TypeError, argv: readonly string[]): string {
  const command = (error instanceof UsageError ? error.command : undefined) ?? argv.find((arg) => !arg.startsWith('-'));
  return isCommand(command) ? commandUsage(command) : overview();
}

/** The command line; the container image has no npm, and its `npx` is this executable, so the docs' `npx textrelay …` runs there as pasted. */
function commandLine(): string[] {
  const args = process.argv.slice(2);
  return basename(process.argv0) === 'npx' && args[0] === 'textrelay' ? args.slice(1) : args;
}

// A promise chain, not a top-level await: the single executable bundles this file as CommonJS.
main(commandLine()).catch((error: unknown) => {
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    process.stderr.write(`${error.message}\n\n${usageFor(error, commandLine())}`);
    process.exit(2);
  }
  if (error instanceof StartupError) {
    process.stderr.write(`textrelay: ${error.message}\n`);
    process.exit(1);
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  if (error instanceof AppError) {
    process.stderr.write(`textrelay: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
});
