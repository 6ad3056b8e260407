import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp } from '../../helpers/app.ts';
import { type BlueBubblesRig, blueBubblesAccount, startBlueBubblesRig } from '../../helpers/bluebubbles.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';

// PostgreSQL cannot store (or look up) a NUL: what an iMessage holds is kept alike on both backends, a NUL as U+FFFD.

const rigs: BlueBubblesRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

async function setup() {
  const t = makeTestApp({ transportName: 'bluebubbles' });
  const account = await blueBubblesAccount(t);
  const rig = await startBlueBubblesRig(t);
  rigs.push(rig);
  await rig.carrier.start();
  return { t, account, rig };
}

describe('an iMessage holding characters PostgreSQL refuses', () => {
  it('is kept from its webhook, a NUL in its text and its guid as U+FFFD, and a repeat adds nothing', async () => {
    const { t, account, rig } = await setup();
    const message = rig.fake.world.receive({ from: ALICE, text: 'nul\u0000here' });
    const odd = { ...rig.fake.world.view(message), guid: `${message.guid}\u0000`, text: 'odd guid \ud83d' };
    rig.fake.world.push('new-message', odd);
    rig.fake.world.push('new-message', odd);
    await rig.fake.world.settled();
    expect(await eventually('text', async () => t.store.messages.findByAnyHandle(message.guid), 5_000)).toMatchObject({
      content: 'nul\uFFFDhere',
      number: ALICE,
    });
    expect(await t.store.messages.findByAnyHandle(`${message.guid}\uFFFD`)).toMatchObject({ content: 'odd guid \uFFFD' });
    const listed = await t.call('GET', '/api/v2/messages', account);
    expect(listed.body.data.map((m: { content: string }) => m.content).sort()).toEqual(['nul\uFFFDhere', 'odd guid \uFFFD']);
  });

  it('is kept by read-back, which goes on past it to the next message', async () => {
    const { t, rig } = await setup();
    rig.fake.world.dropping = true;
    const first = rig.fake.world.receive({ from: ALICE, text: 'missed\u0000one' });
    const second = rig.fake.world.receive({ from: ALICE, text: 'missed two' });
    await rig.fake.world.settled();
    await rig.carrier.readBack();
    expect(await t.store.messages.findByAnyHandle(first.guid)).toMatchObject({ content: 'missed\uFFFDone' });
    expect(await t.store.messages.findByAnyHandle(second.guid)).toMatchObject({ content: 'missed two' });
  });
});
