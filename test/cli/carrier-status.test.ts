import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BB_LINE, type CarrierServe, SMSGATE_LINE, startCarrierServe, TWILIO_LINE } from '../helpers/carrier-serve.ts';
import { SMSGATE_PASSWORD } from '../helpers/fake-smsgate.ts';
import { ALICE, BOB, CAROL } from '../helpers/fixtures.ts';
import { api, eventually } from '../helpers/live.ts';
import { killAll, runCli } from '../helpers/process.ts';

/** `textrelay status` beside a `textrelay serve` running with TEXTRELAY_TRANSPORT=bluebubbles,twilio,smsgate. */

let world: CarrierServe | undefined;
afterAll(async () => {
  await world?.close();
  await killAll();
});

const carrierOf = (json: any, name: string) => json.carriers.find((carrier: { carrier: string }) => carrier.carrier === name);

describe('textrelay status with carriers', () => {
  it('prints a block per carrier: reachable, sends and events counted by the server, and the last error without the password', async () => {
    world = await startCarrierServe();
    const { bluebubbles, twilio, smsgate, account } = world;
    const before = await world.status();
    expect(before.carriers).toEqual([
      expect.objectContaining({ carrier: 'bluebubbles', reachable: true, sends: 0, events: 0, last_error: null }),
      expect.objectContaining({ carrier: 'twilio', reachable: true, sends: 0, events: 0, last_error: null }),
      expect.objectContaining({ carrier: 'smsgate', reachable: true, sends: 0, events: 0, last_error: null }),
    ]);

    const imessage = await api(world.server, account, 'POST', '/api/send-message', { number: ALICE, from_number: BB_LINE, content: 'hi' });
    const sms = await api(world.server, account, 'POST', '/api/send-message', { number: BOB, from_number: TWILIO_LINE, content: 'hi' });
    const android = await api(world.server, account, 'POST', '/api/send-message', {
      number: CAROL,
      from_number: SMSGATE_LINE,
      content: 'hi',
    });
    expect([imessage.status, sms.status, android.status]).toEqual([202, 202, 202]);
    const created = await eventually('Twilio to have the SMS', async () => twilio.messages[0]);
    expect((await twilio.callback(created, 'sent')).status).toBe(204);
    const onPhone = await eventually('the phone to have the SMS', async () => smsgate.messages[0]);
    await smsgate.advance(onPhone.id, 'sent');
    expect(smsgate.deliveries.filter((d) => d.event === 'sms:sent').map((d) => d.status)).toEqual([204]);
    await bluebubbles.world.settled();
    // The server writes its counts down within a second of a change.
    const counted = await eventually('the counts to reach the status', async () => {
      const now = await world!.status();
      return carrierOf(now, 'twilio').events === 1 && carrierOf(now, 'bluebubbles').sends === 1 && carrierOf(now, 'smsgate').events === 1
        ? now
        : undefined;
    });
    expect(carrierOf(counted, 'bluebubbles')).toMatchObject({ reachable: true, sends: 1, last_error: null });
    expect(carrierOf(counted, 'bluebubbles').events).toBeGreaterThanOrEqual(1);
    expect(carrierOf(counted, 'twilio')).toMatchObject({ reachable: true, sends: 1, events: 1, last_error: null });
    expect(carrierOf(counted, 'smsgate')).toMatchObject({ reachable: true, sends: 1, events: 1, last_error: null });
    expect(await world.statusText()).toMatch(
      /Carriers \(reachable: probed now; sends and events: counted by the serve process since it started\):\n {2}bluebubbles {2}reachable, sends 1, events \d+ \(reported \S+\)\n {2}twilio {7}reachable, sends 1, events 1 \(reported \S+\)\n {2}smsgate {6}reachable, sends 1, events 1 \(reported \S+\)/,
    );

    // Run in a shell without the server's settings, status shows the serving process's last report and says why it probes nothing.
    const bare = await runCli(['status', '--json'], { TEXTRELAY_DB: join(world.dir, 'textrelay.db'), LOG_LEVEL: 'warn' });
    expect(bare.code, bare.stderr).toBe(0);
    const reported = JSON.parse(bare.stdout);
    expect(carrierOf(reported, 'bluebubbles')).toMatchObject({ probed: false, reachable: true, sends: 1, last_error: null });
    expect(carrierOf(reported, 'twilio')).toMatchObject({ probed: false, reachable: true, sends: 1, events: 1, last_error: null });
    const bareText = await runCli(['status'], { TEXTRELAY_DB: join(world.dir, 'textrelay.db'), LOG_LEVEL: 'warn' });
    expect(bareText.stdout).toMatch(
      /Carriers \(TEXTRELAY_TRANSPORT here configures none, so none is probed: the serving process's last report; run status with the server's settings to probe them\):\n {2}bluebubbles {2}reachable when last reported, sends 1, events \d+ \(reported \S+\)\n {2}twilio {7}reachable when last reported, sends 1, events 1/,
    );

    // The Mac goes away: this command's own probe finds it unreachable and says why.
    await bluebubbles.stop();
    const down = await world.status();
    expect(carrierOf(down, 'bluebubbles')).toMatchObject({ reachable: false, sends: 1 });
    expect(carrierOf(down, 'bluebubbles').last_error).toMatch(/^BlueBubbles is unreachable \(GET \/ping\): .*ECONNREFUSED/);
    expect(carrierOf(down, 'twilio')).toMatchObject({ reachable: true });
    const downText = await world.statusText();
    expect(downText).toMatch(
      / {2}bluebubbles {2}NOT reachable, sends 1, events \d+ \(reported \S+\)\n {4}last error \S+: BlueBubbles is unreachable/,
    );
    expect(`${downText}${JSON.stringify(down)}`).not.toContain(bluebubbles.settings.password);
    await bluebubbles.restart();

    // The phone's server goes away (Wi-Fi off): the probe finds SMSGate unreachable, the others not.
    smsgate.control.down = true;
    const phoneDown = await world.status();
    expect(carrierOf(phoneDown, 'smsgate')).toMatchObject({ reachable: false, sends: 1, events: 1 });
    expect(carrierOf(phoneDown, 'smsgate').last_error).toMatch(/\S/);
    expect(carrierOf(phoneDown, 'twilio')).toMatchObject({ reachable: true });
    const phoneDownText = await world.statusText();
    expect(phoneDownText).toMatch(/ {2}smsgate {6}NOT reachable, sends 1, events 1 \(reported \S+\)\n {4}last error \S+: /);
    expect(`${phoneDownText}${JSON.stringify(phoneDown)}`).not.toContain(SMSGATE_PASSWORD);
    smsgate.control.down = false;
    expect(carrierOf(await world.status(), 'smsgate')).toMatchObject({ reachable: true });
  }, 180_000);
});
