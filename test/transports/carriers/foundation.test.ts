import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { ErrorCode } from '../../../src/domain/error-codes.ts';
import { addLines } from '../../../src/services/accounts.ts';
import { AppError } from '../../../src/services/app-error.ts';
import type { CarrierHealth } from '../../../src/services/carrier-directory.ts';
import type { OutboundMessage } from '../../../src/services/handover.ts';
import { requireLineAbility } from '../../../src/services/line-carriers.ts';
import type { Carrier } from '../../../src/transports/carriers/carrier.ts';
import { createHealthTracker } from '../../../src/transports/carriers/health.ts';
import { createScrubber } from '../../../src/transports/carriers/scrub.ts';
import { createCarrierTransport } from '../../../src/transports/carriers/transport.ts';
import { createCourier } from '../../../src/transports/courier.ts';
import { TransportRefusal, TransportUnavailable } from '../../../src/transports/transport.ts';
import { makeTestApp } from '../../helpers/app.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { accountRow, send } from '../../helpers/delivery.ts';

const TWILIO_ENV = {
  TEXTRELAY_TRANSPORT: 'twilio',
  TEXTRELAY_TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
  TEXTRELAY_TWILIO_AUTH_TOKEN: 'token',
  TEXTRELAY_PUBLIC_URL: 'https://relay.example',
};

function configProblem(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

/** A carrier that records what it is given and answers as told. */
function fakeCarrier(name: Carrier['name'], answer: (message: OutboundMessage) => Promise<string> = async (m) => `${name}-${m.handle}`) {
  const sent: OutboundMessage[] = [];
  const health: CarrierHealth = { carrier: name, reachable: true, lastError: null, lastErrorAt: null, sends: 0, events: 0 };
  const carrier: Carrier & { sent: OutboundMessage[] } = {
    name,
    sent,
    async send(message) {
      sent.push(message);
      return { transportHandle: await answer(message) };
    },
    async start() {},
    async stop() {},
    async probe() {},
    health: () => health,
    webhooks: async (request) => new Response(`${name} heard ${new URL(request.url).pathname}`, { status: 200 }),
  };
  return carrier;
}

describe('carrier configuration', () => {
  it('names every missing variable of the configured carriers', () => {
    const problem = configProblem({ TEXTRELAY_TRANSPORT: 'bluebubbles,twilio' });
    for (const key of [
      'TEXTRELAY_BLUEBUBBLES_URL',
      'TEXTRELAY_BLUEBUBBLES_PASSWORD',
      'TEXTRELAY_TWILIO_ACCOUNT_SID',
      'TEXTRELAY_TWILIO_AUTH_TOKEN',
      'TEXTRELAY_PUBLIC_URL',
    ])
      expect(problem).toContain(`${key}: is required when TEXTRELAY_TRANSPORT is bluebubbles,twilio`);
  });

  it.each(['AC0123', 'SK0123456789abcdef0123456789abcdef', 'AC0123456789abcdef0123456789abcdeg', ' AC0123456789abcdef0123456789abcdef'])(
    'refuses the Twilio Account SID %j at start, naming the setting and its form',
    (sid) => {
      expect(configProblem({ ...TWILIO_ENV, TEXTRELAY_TWILIO_ACCOUNT_SID: sid })).toContain(
        'TEXTRELAY_TWILIO_ACCOUNT_SID: must be the Account SID from the Twilio console: AC and 32 hexadecimal digits',
      );
    },
  );

  it('refuses a transport it does not know, naming the accepted ones', () => {
    expect(configProblem({ TEXTRELAY_TRANSPORT: 'twilio,sandbox' })).toContain(
      'TEXTRELAY_TRANSPORT: must be sandbox, upstream, or a comma list of distinct carriers among bluebubbles, twilio, smsgate',
    );
  });

  it('allows a carrier on loopback or the LAN, refuses one on a metadata address', () => {
    expect(loadConfig({ ...TWILIO_ENV, TEXTRELAY_TWILIO_API_URL: 'http://127.0.0.1:9999' }).TEXTRELAY_TWILIO_API_URL).toBe(
      'http://127.0.0.1:9999',
    );
    expect(loadConfig({ ...TWILIO_ENV, TEXTRELAY_TWILIO_API_URL: 'http://192.168.1.20' }).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(false);
    expect(configProblem({ ...TWILIO_ENV, TEXTRELAY_TWILIO_API_URL: 'http://169.254.169.254' })).toContain(
      'TEXTRELAY_TWILIO_API_URL: is 169.254.169.254, a link-local or cloud-metadata address',
    );
  });
});

describe('lines bound to carriers', () => {
  it('keeps at most one line on BlueBubbles, saying why, and writes nothing', async () => {
    const t = makeTestApp();
    const first = await t.createAccount({ numbers: ['+14155550180'], carrier: 'bluebubbles' });
    const refused = addLines(t.deps, first.email, ['+14155550181'], 'bluebubbles');
    await expect(refused).rejects.toThrow(/BlueBubbles serves one identity.*\+14155550180 is already bound to it/);
    expect(await t.store.accounts.listServiceNumbers((await accountRow(t, first)).id)).toEqual(['+14155550180']);
    await addLines(t.deps, first.email, ['+14155550182', '+14155550183'], 'twilio');
    expect(await t.store.lines.carrierOf('+14155550182')).toBe('twilio');
    expect(await t.store.lines.carrierOf('+14155550180')).toBe('bluebubbles');
  });

  it('refuses generated numbers for a carrier', async () => {
    const t = makeTestApp();
    await expect(t.createAccount({ numbers: 2, carrier: 'twilio' })).rejects.toThrow('Twilio lines are its real numbers');
  });

  it("refuses what no line's carrier can do, naming the carrier", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: ['+14155550184'], carrier: 'twilio' });
    const row = await accountRow(t, account);
    const refusal = await requireLineAbility(t.deps, row, 'groups').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: ErrorCode.validation });
    expect((refusal as Error).message).toBe('+14155550184 is delivered by Twilio, which cannot carry group messages');
    await addLines(t.deps, account.email, ['+14155550185'], 'bluebubbles');
    await expect(requireLineAbility(t.deps, row, 'groups')).resolves.toBeUndefined();
  });
});

describe('the carriers transport', () => {
  it("hands each message to its line's carrier, and refuses a line bound to none or to a carrier not configured", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: ['+14155550186', '+14155550187'], carrier: 'twilio' });
    await addLines(t.deps, account.email, ['+14155550188'], 'bluebubbles');
    await t.store.accounts.insertServiceNumber((await accountRow(t, account)).id, '+14155550189', 0);
    const twilio = fakeCarrier('twilio');
    const bluebubbles = fakeCarrier('bluebubbles');
    const transport = createCarrierTransport(t.deps, [twilio, bluebubbles]);
    const message = (lineNumber: string) => ({ handle: `h${lineNumber}`, lineNumber }) as OutboundMessage;
    expect(await transport.send(message('+14155550188'))).toEqual({ transportHandle: 'bluebubbles-h+14155550188' });
    expect(await transport.send(message('+14155550186'))).toEqual({ transportHandle: 'twilio-h+14155550186' });
    await expect(transport.send(message('+14155550189'))).rejects.toThrow(
      new TransportRefusal(
        ErrorCode.sendFailed,
        'Line +14155550189 is bound to no carrier (a sandbox line): with carriers configured only lines bound to one are served; ' +
          "remove it with `textrelay accounts lines remove --email EMAIL +14155550189 --force` once the account has a carrier's line, " +
          'or serve the carrier from a fresh database (--db)',
      ),
    );
    expect([...twilio.sent, ...bluebubbles.sent].map((sent) => sent.lineNumber)).toEqual(['+14155550186', '+14155550188']);
    const onlyTwilio = createCarrierTransport(t.deps, [twilio]);
    await expect(onlyTwilio.send(message('+14155550188'))).rejects.toThrow(
      new TransportRefusal(ErrorCode.sendFailed, 'Line +14155550188 is bound to BlueBubbles, which TEXTRELAY_TRANSPORT does not configure'),
    );
  });

  it("retries a carrier that is down on the schedule, then fails the message with the carrier's reason", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: ['+14155550186'], carrier: 'twilio' });
    const twilio = fakeCarrier('twilio', async () => {
      throw new TransportUnavailable('Twilio answered 503');
    });
    const courier = createCourier(t.deps, createCarrierTransport(t.deps, [twilio]), { retryDelaysMs: [1, 1], concurrency: 1 });
    t.notifier.subscribe({ messageQueued: courier.enqueue });
    const message = await send(t, account);
    for (let waited = 0; (await t.store.messages.findByAnyHandle(message.message_handle))?.status !== 'ERROR'; waited += 5) {
      if (waited > 5_000) throw new Error('the message never failed');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await courier.stop();
    const failed = await t.store.messages.findByAnyHandle(message.message_handle);
    expect(twilio.sent).toHaveLength(3);
    expect(failed).toMatchObject({ errorCode: 10001, errorMessage: 'Twilio answered 503 (gave up after 3 attempts)' });
  });
});

describe('carrier webhooks', () => {
  it('reach the registered carrier under /webhooks/carriers/<name>/, and nothing else does', async () => {
    const t = makeTestApp();
    t.deps.carriers.register(fakeCarrier('twilio'));
    const heard = await t.app.request('/webhooks/carriers/twilio/status?m=1', { method: 'POST', body: 'a=b' });
    expect(heard.status).toBe(200);
    expect(await heard.text()).toBe('twilio heard /webhooks/carriers/twilio/status');
    expect((await t.app.request('/webhooks/carriers/bluebubbles/events', { method: 'POST', body: '{}' })).status).toBe(404);
  });
});

describe("a carrier's secrets", () => {
  it('never reach its last error, plain or URL-encoded', () => {
    const scrub = createScrubber(['pa ss&word', undefined]);
    const health = createHealthTracker('bluebubbles', new FakeClock(), scrub);
    health.unreachable('GET http://mac.local:1234/api/v1/ping?password=pa%20ss%26word failed; pa ss&word');
    expect(health.snapshot()).toMatchObject({
      reachable: false,
      lastError: 'GET http://mac.local:1234/api/v1/ping?password=[redacted] failed; [redacted]',
    });
  });
});
