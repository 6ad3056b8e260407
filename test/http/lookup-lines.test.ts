import { describe, expect, it } from 'vitest';
import { workerIdOf } from '../../src/domain/line-state.ts';
import { ProviderAnswer, type ProviderApi, type ProviderRequest } from '../../src/services/provider.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, show } from '../helpers/fixtures.ts';
import { oneProviderAccount } from '../helpers/providers.ts';

/** GET /api/evaluate-service (lookups.lookupNumber) and GET /api/v2/lines/state (lines.getState). */

/** A provider that answers every call with `answer` (or fails), and remembers the calls. */
function fakeProvider(answer: (request: ProviderRequest) => ProviderAnswer) {
  const calls: ProviderRequest[] = [];
  const provider: ProviderApi = {
    async call(request) {
      calls.push(request);
      return answer(request);
    },
  };
  return { provider, calls };
}

describe('GET /api/evaluate-service', () => {
  it.each([
    ['+14155550102', 'SMS'],
    ['+12125550102', 'SMS'],
    [ALICE, 'iMessage'],
    ['+442071838750', 'iMessage'],
  ])('sandbox: %s is reached by %s', async (number, service) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(number)}`, account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body).toEqual({ number, service });
  });

  it('answers the number in E.164 when written with separators or an unencoded +', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('GET', '/api/evaluate-service?number=+1 (415) 555-0102', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body).toEqual({ number: '+14155550102', service: 'SMS' });
  });

  it.each(['', 'not-a-number', '12'])('refuses %j with 400/4000 naming number', async (number) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(number)}`, account);
    expect(response.status, show(response.body)).toBe(400);
    expect(response.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect(response.body.error_message).toBe('number must be E.164, like +14155550100');
  });

  it('requires number', async () => {
    const t = makeTestApp();
    const response = await t.call('GET', '/api/evaluate-service', await t.createAccount());
    expect(response.status).toBe(400);
    expect(response.body.error_message).toBe('number is required');
  });

  it('refuses a caller without credentials first', async () => {
    const t = makeTestApp();
    const response = await t.call('GET', '/api/evaluate-service?number=bad', undefined);
    expect(response.status).toBe(401);
    expect(response.body.error_code).toBe(4010);
  });

  it('relay mode: answers what the provider answered, status and body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { provider, calls } = fakeProvider(() => new ProviderAnswer(200, { number: ALICE, service: 'SMS', extra: 1 }));
    t.deps.providers = oneProviderAccount(provider);
    const response = await t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(ALICE)}`, account);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ number: ALICE, service: 'SMS', extra: 1 });
    expect(calls).toEqual([{ method: 'GET', path: '/api/evaluate-service', query: { number: ALICE } }]);

    t.deps.providers = oneProviderAccount(
      fakeProvider(() => new ProviderAnswer(400, { status: 'ERROR', error_code: 4000, message: 'no' })).provider,
    );
    const refused = await t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(ALICE)}`, account);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ status: 'ERROR', error_code: 4000, message: 'no' });
  });
});

describe('GET /api/v2/lines/state', () => {
  it("answers each of the account's lines, assigned and online since it was added", async () => {
    const t = makeTestApp();
    const addedAt = t.clock.now();
    const account = await t.createAccount({ numbers: 2 });
    await t.createAccount({ numbers: 1 });
    t.clock.advance(5_000);
    const response = await t.call('GET', '/api/v2/lines/state', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.status).toBe('OK');
    expect(response.body.snapshot_at).toBe(new Date(addedAt + 5_000).toISOString());
    const numbers = (response.body.data as any[]).map((line) => line.sendblue_number).sort();
    expect(numbers).toEqual([...account.numbers].sort());
    for (const line of response.body.data) {
      expect(line).toEqual({
        sendblue_number: line.sendblue_number,
        worker_id: workerIdOf(line.sendblue_number),
        assignment: 'assigned',
        status: 'ONLINE',
        status_changed_at: new Date(addedAt).toISOString(),
        degraded_since: null,
        effective_until: null,
      });
    }
  });

  it('gives each line a stable worker_id of its own', () => {
    expect(workerIdOf('+14155550110')).toBe(workerIdOf('+14155550110'));
    expect(workerIdOf('+14155550110')).not.toBe(workerIdOf('+14155550111'));
    expect(workerIdOf('+14155550110')).toMatch(/^w_[0-9a-f]{8}$/);
  });

  it("relay mode: keeps only the account's own lines of the provider's answer", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: ['+14155550150'] });
    await t.createAccount({ numbers: ['+14155550151'] });
    const state = (number: string) => ({ sendblue_number: number, worker_id: 'prov', assignment: 'shared', status: 'DEGRADED' });
    t.deps.providers = oneProviderAccount(
      fakeProvider(() => new ProviderAnswer(200, { status: 'OK', snapshot_at: 'x', data: [state('+14155550150'), state('+14155550151')] }))
        .provider,
    );
    const response = await t.call('GET', '/api/v2/lines/state', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.data).toEqual([state('+14155550150')]);
  });

  it('relay mode: answers from local records when the provider fails', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: ['+14155550150'] });
    for (const failing of [
      () => new ProviderAnswer(503, { status: 'ERROR' }),
      () => {
        throw new Error('connection refused');
      },
    ]) {
      t.deps.providers = oneProviderAccount(fakeProvider(failing).provider);
      const response = await t.call('GET', '/api/v2/lines/state', account);
      expect(response.status, show(response.body)).toBe(200);
      expect(response.body.data).toMatchObject([{ sendblue_number: '+14155550150', assignment: 'assigned', status: 'ONLINE' }]);
    }
  });
});
