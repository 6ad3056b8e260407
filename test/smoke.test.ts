import { describe, expect, it } from 'vitest';
import { makeTestApp } from './helpers/app.ts';

describe('app', () => {
  it('sends a message and finds it by handle', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: '+14155550100', content: 'hello' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const found = await t.call('GET', `/api/status?handle=${sent.body.message_handle}`, account);
    expect(found.body).toMatchObject({ status: 'QUEUED', content: 'hello', number: '+14155550100' });
  });
});
