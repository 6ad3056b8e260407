import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { PIXEL_PNG, TWILIO_TOKEN } from '../helpers/fake-twilio.ts';
import { ALICE, BOB } from '../helpers/fixtures.ts';
import { eventually } from '../helpers/live.ts';
import { BB_LINE, type CarriersWorld, startCarriersWorld, TWILIO_LINE } from './carriers-world.ts';

/**
 * Real requests through both carriers, logged at the most verbose level: no line carries a
 * webhook secret, a carrier's password or token, an API secret, or a media file's unguessable id.
 */

const raw: string[] = [];
const log = createLogger('trace', {
  write(line: string) {
    raw.push(line);
  },
});
let world: CarriersWorld;
beforeAll(async () => {
  world = await startCarriersWorld({ log });
}, 60_000);
afterAll(async () => {
  await world?.close();
});

type Line = Record<string, unknown> & { msg: string };
const parsed = () => raw.map((line) => JSON.parse(line) as Line);

/** The media id of one of textrelay's media URLs: the capability that serves the file to anyone holding it. */
function mediaIdOf(url: string): string {
  return new URL(url).pathname
    .split('/')
    .pop()!
    .replace(/\.\w+$/, '');
}

describe('log lines at trace level', () => {
  it('carry no carrier secret, API secret or media capability, while naming each request', async () => {
    const mediaIds: string[] = [];

    // An iMessage with a picture: BlueBubbles posts to its secret URL, textrelay serves the picture at a /media/ URL.
    world.mac.world.receive({
      from: ALICE,
      text: 'a picture',
      attachments: [{ guid: 'ATT-1', mimeType: 'image/png', transferName: 'p.png', totalBytes: PIXEL_PNG.length, bytes: PIXEL_PNG }],
    });
    await world.mac.world.settled();
    const inbound = await eventually('the inbound picture', async () => {
      const listed = await world.sdkOf(world.imessage).messages.list({ is_outbound: false } as never);
      return (listed.data ?? []).find((message) => (message as { media_url?: string }).media_url) as { media_url: string } | undefined;
    });
    mediaIds.push(mediaIdOf(inbound.media_url));
    expect((await fetch(inbound.media_url)).status).toBe(200);
    expect((await fetch(`${world.url}/media/${'A'.repeat(43)}.png`)).status).toBe(404);
    // A wrong BlueBubbles secret: 404, and its path is no more logged than the right one's.
    expect((await fetch(`${world.url}/webhooks/carriers/bluebubbles/not-the-secret`, { method: 'POST', body: '{}' })).status).toBe(404);

    // An upload, sent as MMS through Twilio (which is handed its URL) and as an iMessage attachment.
    const upload = await world.t.call('POST', '/api/upload-media-object', world.sms, { media_url: `${world.twilio.url}/media/ME0.png` });
    expect(upload.status).toBe(200);
    mediaIds.push(mediaIdOf(upload.body.media_url));
    const mms = await world.sdkOf(world.sms).messages.send({ number: BOB, from_number: TWILIO_LINE, media_url: upload.body.media_url });
    const picture = await world.sdkOf(world.imessage).messages.send({ number: BOB, from_number: BB_LINE, media_url: inbound.media_url });
    for (const handle of [mms.message_handle, picture.message_handle]) {
      await eventually(`${handle} to leave QUEUED`, async () => {
        const row = await world.t.store.messages.findByAnyHandle(handle as string);
        return row && (row.transportHandle || row.status !== 'QUEUED') ? row : undefined;
      });
    }
    const sid = (await world.t.store.messages.findByAnyHandle(mms.message_handle as string))!.transportHandle;
    await world.twilio.callback(world.twilio.messages.find((message) => message.sid === sid)!, 'delivered');
    await world.mac.world.settled();

    const secrets = {
      'BlueBubbles webhook secret': world.mac.world.webhooks[0]!.url.split('/').pop()!,
      'BlueBubbles password': world.mac.settings.password,
      'Twilio token': TWILIO_TOKEN,
      ...Object.fromEntries(mediaIds.map((id, index) => [`media id ${index}`, id])),
      ...Object.fromEntries(
        [world.imessage, world.sms, world.otherSms].map((account, index) => [`API secret ${index}`, account.api_secret_key]),
      ),
    };
    for (const [name, secret] of Object.entries(secrets)) expect(secret.length, name).toBeGreaterThan(10);
    const leaks = Object.entries(secrets).flatMap(([name, secret]) =>
      raw.filter((line) => line.includes(secret)).map((line) => `${name}: ${line}`),
    );
    expect(leaks).toEqual([]);

    // The lines are there, naming each request by its route.
    const routes = parsed()
      .filter((line) => line.msg === 'request')
      .map((line) => `${line.route} ${line.path}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        '/webhooks/carriers/:carrier/* /webhooks/carriers/bluebubbles/[redacted]',
        '/webhooks/carriers/:carrier/* /webhooks/carriers/twilio/status',
        '/media/:file /media/[redacted].png',
      ]),
    );
  });
});
