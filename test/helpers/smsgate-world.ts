import { startCarrierWorld } from './carrier-world.ts';
import { type FakeSmsGateOptions, SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY, SMSGATE_USERNAME, startFakeSmsGate } from './fake-smsgate.ts';

/** textrelay with TEXTRELAY_TRANSPORT=smsgate in this process, beside a fake phone (see startCarrierWorld). */
export async function startSmsGateWorld(
  options: {
    line: string;
    retrySchedule?: string;
    readbackSeconds?: number;
    config?: Record<string, string | number>;
    phone?: FakeSmsGateOptions;
  } = { line: '+14155550170' },
) {
  // The phone's clock is the app's (a fake one): its X-Timestamp must be within five minutes of it.
  let clock: () => number = Date.now;
  const phone = await startFakeSmsGate({ phoneNumber: options.line, now: () => clock(), ...options.phone });
  const world = await startCarrierWorld({
    carrier: 'smsgate',
    lines: [options.line],
    retrySchedule: options.retrySchedule,
    readbackSeconds: options.readbackSeconds,
    config: {
      TEXTRELAY_SMSGATE_URL: phone.url,
      TEXTRELAY_SMSGATE_USERNAME: SMSGATE_USERNAME,
      TEXTRELAY_SMSGATE_PASSWORD: SMSGATE_PASSWORD,
      TEXTRELAY_SMSGATE_SIGNING_KEY: SMSGATE_SIGNING_KEY,
      ...options.config,
    },
  });
  clock = () => world.t.clock.now();
  return {
    ...world,
    phone,
    async close() {
      await world.close();
      await phone.close();
    },
  };
}

export type SmsGateWorld = Awaited<ReturnType<typeof startSmsGateWorld>>;
