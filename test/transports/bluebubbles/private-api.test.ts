import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/services/app-error.ts';
import { makeTestApp } from '../../helpers/app.ts';
import { type BlueBubblesRig, blueBubblesAccount, startBlueBubblesRig } from '../../helpers/bluebubbles.ts';
import { ALICE, BOB, CAROL } from '../../helpers/fixtures.ts';

const rigs: BlueBubblesRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

async function setup(): Promise<BlueBubblesRig> {
  const t = makeTestApp({ transportName: 'bluebubbles' });
  await blueBubblesAccount(t);
  const rig = await startBlueBubblesRig(t);
  rigs.push(rig);
  await rig.carrier.start();
  return rig;
}

/** The AppError a carrier action answers, with its HTTP code. */
async function refusalOf(action: Promise<void>): Promise<AppError> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function groupOf(rig: BlueBubblesRig): string {
  return rig.fake.world.ensureChat('iMessage;+;chat123', [ALICE, BOB], 'iMessage').guid;
}

describe('BlueBubbles Private API actions', () => {
  it('refuses (400) a group change BlueBubbles refuses, saying its words', async () => {
    const rig = await setup();
    rig.fake.world.receive({ from: ALICE, text: 'hi' });
    const refused = await refusalOf(rig.carrier.actions!.editGroup(`iMessage;-;${ALICE}`, { kind: 'rename', name: 'Two of us' }));
    expect(refused.code).toBe(4000);
    expect(refused.message).toBe('Renaming a group: BlueBubbles refused it (Chat is not a group chat!); nothing was changed');
  });

  it('answers 503 when Messages never shows the change (a member added twice), naming the server’s words', async () => {
    const rig = await setup();
    const chat = groupOf(rig);
    await rig.carrier.actions!.editGroup(chat, { kind: 'add_recipient', number: CAROL });
    const failed = await refusalOf(rig.carrier.actions!.editGroup(chat, { kind: 'add_recipient', number: CAROL }));
    expect(failed.code).toBe(5003);
    expect(failed.message).toMatch(
      /^Adding a group member failed at BlueBubbles: .*Operation took longer than 30 seconds.*nothing was changed/,
    );
    expect(rig.fake.world.chat(chat)!.participants.map((member) => member.address)).toEqual([ALICE, BOB, CAROL]);
  });

  it('answers 503 with a retry time while the Mac is down, the password left out', async () => {
    const rig = await setup();
    const chat = groupOf(rig);
    await rig.fake.stop();
    const failed = await refusalOf(rig.carrier.actions!.editGroup(chat, { kind: 'remove_recipient', number: BOB }));
    expect(failed.code).toBe(5003);
    expect(failed.retryAfterSeconds).toBe(30);
    expect(failed.message).toMatch(/^Removing a group member failed at BlueBubbles: BlueBubbles is unreachable/);
    expect(failed.message).not.toContain(rig.fake.settings.password);
  });

  it('refuses typing to someone with no chat on the Mac yet, or reached by SMS', async () => {
    const rig = await setup();
    const none = await refusalOf(rig.carrier.actions!.typing({ number: ALICE, state: 'start' }));
    expect(none.message).toBe(
      `There is no conversation with ${ALICE} on the Mac yet: typing indicators go into one, so send a message first`,
    );
    rig.fake.world.smsOnly.add(BOB);
    rig.fake.world.receive({ from: BOB, text: 'by SMS', service: 'SMS' });
    const sms = await refusalOf(rig.carrier.actions!.typing({ number: BOB, state: 'start' }));
    expect(sms.message).toBe(`${BOB} is reached by SMS, which has no typing indicators`);
    expect(rig.fake.typing).toEqual([]);
  });
});
