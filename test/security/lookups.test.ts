import { afterEach, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/app.ts';
import { expectDocumentedError } from '../helpers/documented-errors.ts';
import { ALICE, BOB, CAROL, DAVE, distinctNumbers } from '../helpers/fixtures.ts';
import { openApiDocument, operationOf } from '../helpers/route-table.ts';
import { type CarriersWorld, startCarriersWorld } from './carriers-world.ts';

/**
 * lookups.lookupNumber through the Mac: only for the account whose line BlueBubbles carries, one
 * request to the Mac per number at most (remembered), limited per account, and never an answer
 * that tells whether the Mac has a conversation with the number.
 */

const worlds: CarriersWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

async function started(options: Parameters<typeof startCarriersWorld>[0] = {}): Promise<CarriersWorld> {
  const world = await startCarriersWorld(options);
  worlds.push(world);
  return world;
}

function lookup(world: CarriersWorld, account: TestAccount, number: string) {
  return world.t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(number)}`, account);
}

/** The requests the Mac got since `from` that a lookup could have made (its chats, its messages, Apple's check). */
function macLookups(world: CarriersWorld, from: number): string[] {
  return world.mac.requests
    .slice(from)
    .map((request) => new URL(request.url).pathname)
    .filter((path) => /\/api\/v1\/(chat|handle|message\/query)/.test(path));
}

describe('evaluate-service with a BlueBubbles carrier', () => {
  it("answers other accounts without asking the Mac, and the line's account through it", async () => {
    const world = await started();
    world.mac.world.smsOnly.add(ALICE);
    const before = world.mac.requests.length;
    for (const account of [world.sms, world.otherSms]) {
      const answer = await lookup(world, account, ALICE);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ number: ALICE, service: 'iMessage' });
    }
    expect(macLookups(world, before)).toEqual([]);
    expect((await lookup(world, world.imessage, ALICE)).body).toEqual({ number: ALICE, service: 'SMS' });
    expect(macLookups(world, before)).toEqual(['/api/v1/handle/availability/imessage']);
  });

  it('asks the Mac once per number, then answers from memory', async () => {
    const world = await started();
    const before = world.mac.requests.length;
    for (let round = 0; round < 5; round++) {
      for (const number of [BOB, CAROL]) expect((await lookup(world, world.imessage, number)).body.service).toBe('iMessage');
    }
    expect(macLookups(world, before)).toHaveLength(2);
  });

  it('limits the lookups that reach the Mac per account, with 429 and Retry-After, then recovers', async () => {
    const world = await started({ config: { TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE: 3 } });
    const numbers = distinctNumbers(4);
    for (const number of numbers.slice(0, 3)) expect((await lookup(world, world.imessage, number)).status).toBe(200);
    const before = world.mac.requests.length;
    const refused = await world.t.app.request(`/api/evaluate-service?number=${encodeURIComponent(numbers[3]!)}`, {
      headers: world.imessage.headers,
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const doc = await openApiDocument(world.t.app);
    const operation = operationOf(doc, { method: 'GET', path: '/api/evaluate-service' })!;
    expectDocumentedError(operation, 429, refused.headers.get('content-type'), await refused.text(), 'evaluate-service');
    expect(macLookups(world, before)).toEqual([]);
    // A number already looked up costs the Mac nothing, and is answered still.
    expect((await lookup(world, world.imessage, numbers[0]!)).status).toBe(200);
    // Other accounts are not held back.
    expect((await lookup(world, world.sms, numbers[3]!)).status).toBe(200);
    world.t.clock.advance(60_000);
    expect((await lookup(world, world.imessage, numbers[3]!)).status).toBe(200);
  });
});

describe('evaluate-service with the Private API off', () => {
  it('answers the same for a number the Mac has a conversation with as for one it has not, asking the Mac nothing', async () => {
    const world = await started({
      prepare: (mac) => {
        mac.settings.privateApi = false;
      },
    });
    // The Mac has written to DAVE by SMS; it has never written to BOB.
    world.mac.world.ensureChat(`SMS;-;${DAVE}`, [DAVE], 'SMS');
    world.mac.world.store({ chatGuid: `SMS;-;${DAVE}`, text: 'hi', isFromMe: true, handle: { address: DAVE, service: 'SMS' } });
    world.mac.world.smsOnly.add(DAVE);
    const before = world.mac.requests.length;
    const known = await lookup(world, world.imessage, DAVE);
    const unknown = await lookup(world, world.imessage, BOB);
    expect(known.status).toBe(200);
    expect({ ...known.body, number: BOB }).toEqual(unknown.body);
    expect(macLookups(world, before)).toEqual([]);
  });
});
