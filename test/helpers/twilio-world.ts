import { startCarrierWorld } from './carrier-world.ts';
import { startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from './fake-twilio.ts';

/** textrelay with TEXTRELAY_TRANSPORT=twilio in this process, beside a fake Twilio (see startCarrierWorld). */
export async function startTwilioWorld(options: {
  lines: string[];
  otherNumbers?: string[];
  retrySchedule?: string;
  readbackSeconds?: number;
}) {
  const twilio = await startFakeTwilio([...options.lines, ...(options.otherNumbers ?? [])]);
  const world = await startCarrierWorld({
    carrier: 'twilio',
    lines: options.lines,
    retrySchedule: options.retrySchedule,
    readbackSeconds: options.readbackSeconds,
    config: {
      TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
      TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TEXTRELAY_TWILIO_API_URL: twilio.url,
    },
  });
  return {
    ...world,
    twilio,
    async close() {
      await world.close();
      await twilio.close();
    },
  };
}

export type TwilioWorld = Awaited<ReturnType<typeof startTwilioWorld>>;
