import { afterAll, describe, expect, it } from 'vitest';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { BB_LINE, type CarrierServe, SMSGATE_LINE, startCarrierServe, TWILIO_LINE } from '../helpers/carrier-serve.ts';
import { ALICE, BOB, CAROL, DAVE } from '../helpers/fixtures.ts';
import { api, eventually } from '../helpers/live.ts';
import { killAll } from '../helpers/process.ts';

/**
 * A real `textrelay serve` on three carriers, killed with SIGKILL while a carrier holds its answer
 * to a send that it has already carried out, then restarted on the same file and port.
 * BlueBubbles: the message is read back by its tempGuid (or text), never sent twice, and an
 * iMessage that arrived while textrelay was down reaches the receive webhook once.
 * Twilio has no client id to read a message back by: the hand-over is at least once
 * (docs/carriers.md), so the carrier gets it twice while the client still sees each status once.
 * SMSGate: textrelay's handle is the phone's message id, so the send again after the restart is
 * answered 409 and the phone holds one message; an SMS whose webhook the phone gave up on while
 * textrelay was down comes in once through the inbox read-back.
 */

const SLOW = 180_000;
let world: CarrierServe | undefined;
afterAll(async () => {
  await world?.close();
  await killAll();
});

async function statusOf(serve: CarrierServe, handle: string): Promise<string> {
  return (await api(serve.server, serve.account, 'GET', `/api/status?handle=${handle}`)).body.status;
}

async function sendOn(serve: CarrierServe, line: string, number: string, content: string): Promise<string> {
  const sent = await api(serve.server, serve.account, 'POST', '/api/send-message', {
    number,
    from_number: line,
    content,
    status_callback: serve.receiver.url('/status'),
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return sent.body.message_handle;
}

describe('kill -9 during a hand-over to a carrier', () => {
  it(
    'BlueBubbles: reads the sent message back after the restart instead of sending it again; relays what arrived meanwhile once',
    async () => {
      world = await startCarrierServe();
      const { bluebubbles, receiver } = world;
      // The Mac takes the send and answers only after Messages stored it.
      bluebubbles.control.sendDelayMs = 1_500;
      const handle = await sendOn(world, BB_LINE, ALICE, 'sent while textrelay died');
      await eventually('the send to reach the Mac', async () =>
        bluebubbles.sends.some((s) => s.body.tempGuid === handle) ? true : undefined,
      );
      await world.kill();
      bluebubbles.control.sendDelayMs = 0;
      const sent = await eventually('the Mac to send it', async () =>
        [...bluebubbles.world.messages.values()].find((m) => m.isFromMe && m.text === 'sent while textrelay died'),
      );
      // Its echoes, and a person's message, go to a dead URL: BlueBubbles never retries them.
      const missed = bluebubbles.world.receive({ from: CAROL, text: 'written while textrelay was down' });
      await bluebubbles.world.settled();

      await world.restart();
      await eventually('the message to be SENT', async () => ((await statusOf(world!, handle)) === 'SENT' ? true : undefined));
      bluebubbles.world.deliver(sent.guid);
      await bluebubbles.world.settled();
      await eventually('the message to be DELIVERED', async () => ((await statusOf(world!, handle)) === 'DELIVERED' ? true : undefined));
      expect(bluebubbles.sends.filter((s) => s.body.tempGuid === handle)).toHaveLength(1);
      expect([...bluebubbles.world.messages.values()].filter((m) => m.text === 'sent while textrelay died')).toHaveLength(1);
      await eventually('the status callbacks', async () =>
        receiver.received.some((r) => r.json?.status === 'DELIVERED') ? true : undefined,
      );
      expectCallbacksOnce(receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);

      const relayed = () => receiver.received.filter((r) => r.path === '/receive' && r.json?.content === missed.text);
      await eventually('the missed message to reach the receive webhook', async () => (relayed().length > 0 ? true : undefined));
      // Two more read-back passes (TEXTRELAY_CARRIER_READBACK_S=1) change nothing.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(relayed()).toHaveLength(1);
      expect(relayed()[0]!.json).toMatchObject({ from_number: CAROL, to_number: BB_LINE, is_outbound: false });
    },
    SLOW,
  );

  it(
    'Twilio: sends again after the restart (at least once), and the client sees each status once',
    async () => {
      if (!world) throw new Error('runs after the BlueBubbles test, on its server');
      const { twilio, receiver } = world;
      const release = twilio.holdAnswers();
      const handle = await sendOn(world, TWILIO_LINE, BOB, 'sent while textrelay died');
      const ofHandle = () => twilio.messages.filter((m) => m.form.get('StatusCallback')?.endsWith(`m=${encodeURIComponent(handle)}`));
      await eventually('Twilio to take the message', async () => (ofHandle().length === 1 ? true : undefined));
      await world.kill();
      release();

      await world.restart();
      const [first, second] = await eventually('the hand-over again after the restart', async () =>
        ofHandle().length === 2 ? ofHandle() : undefined,
      );
      // Both copies report to the same message; each status reaches the client once.
      for (const copy of [first!, second!])
        for (const status of ['sent', 'delivered']) expect((await twilio.callback(copy, status)).status).toBe(204);
      await eventually('the message to be DELIVERED', async () => ((await statusOf(world!, handle)) === 'DELIVERED' ? true : undefined));
      await eventually('the status callbacks', async () =>
        receiver.received.some((r) => r.json?.message_handle === handle && r.json?.status === 'DELIVERED') ? true : undefined,
      );
      expectCallbacksOnce(receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);
      expect(ofHandle()).toHaveLength(2);
    },
    SLOW,
  );

  it(
    'SMSGate: the send again after the restart is answered 409 and sent once; relays what arrived meanwhile once',
    async () => {
      if (!world) throw new Error('runs after the BlueBubbles test, on its server');
      const { smsgate, receiver } = world;
      const release = smsgate.control.holdAnswers();
      const handle = await sendOn(world, SMSGATE_LINE, DAVE, 'sent while textrelay died');
      const postsOf = () => smsgate.posts.filter((post) => post.body?.id === handle).map((post) => post.status);
      // The phone has stored the message; its 202 waits until textrelay is dead.
      await eventually('the phone to take the message', async () => (postsOf().length === 1 ? true : undefined));
      expect(postsOf()).toEqual([202]);
      await world.kill();
      release();

      // An SMS comes in while textrelay is down; the phone retries its webhook a few times, then gives up.
      const missed = 'texted the phone while textrelay was down';
      smsgate.receive({ from: CAROL, text: missed });
      await smsgate.settled();
      const received = smsgate.deliveries.filter((delivery) => delivery.event === 'sms:received');
      expect(received.length).toBeGreaterThan(1);
      expect(received.every((delivery) => delivery.status === 'no answer')).toBe(true);

      await world.restart();
      await eventually('the hand-over again after the restart, answered 409', async () => (postsOf().includes(409) ? true : undefined));
      // The phone holds and sends the message once: one 202, the rest "already there".
      expect(postsOf()[0]).toBe(202);
      expect(
        postsOf()
          .slice(1)
          .every((status) => status === 409),
      ).toBe(true);
      expect(smsgate.messages.filter((message) => message.id === handle)).toHaveLength(1);
      const postsBefore = postsOf().length;

      await smsgate.advance(handle, 'sent');
      await eventually('the message to be SENT', async () => ((await statusOf(world!, handle)) === 'SENT' ? true : undefined));
      await smsgate.advance(handle, 'delivered');
      await eventually('the message to be DELIVERED', async () => ((await statusOf(world!, handle)) === 'DELIVERED' ? true : undefined));
      const reports = smsgate.deliveries.filter((delivery) => delivery.event === 'sms:sent' || delivery.event === 'sms:delivered');
      expect(reports.map((delivery) => delivery.status)).toEqual([204, 204]);
      await eventually('the status callbacks', async () =>
        receiver.received.some((r) => r.json?.message_handle === handle && r.json?.status === 'DELIVERED') ? true : undefined,
      );
      expectCallbacksOnce(receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);

      const relayed = () => receiver.received.filter((r) => r.path === '/receive' && r.json?.content === missed);
      await eventually('the missed SMS to reach the receive webhook', async () => (relayed().length > 0 ? true : undefined));
      // Two more read-back passes (TEXTRELAY_CARRIER_READBACK_S=1) change nothing, and nothing is sent again.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(relayed()).toHaveLength(1);
      expect(relayed()[0]!.json).toMatchObject({ from_number: CAROL, to_number: SMSGATE_LINE, is_outbound: false });
      expect(postsOf()).toHaveLength(postsBefore);
      expect(smsgate.messages.filter((message) => message.id === handle)).toHaveLength(1);
    },
    SLOW,
  );
});
