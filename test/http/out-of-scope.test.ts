import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, show } from '../helpers/fixtures.ts';

/** The official SDK's calls textrelay does not offer: 501/5010 naming the call, after the credentials. */

const CALLS: Array<[method: string, path: string, sdkCall: string]> = [
  ['POST', '/v3/auth/tokens', 'auth.tokens.create'],
  ['DELETE', '/v3/auth/tokens/tok_1', 'auth.tokens.revoke'],
  ['POST', '/api/v2/verify/services/VA1/verifications', 'verify.verifications.create'],
  ['GET', '/api/v2/verify/services/VA1/verifications/VE1', 'verify.verifications.retrieve'],
  ['GET', '/api/v2/verify/verifications', 'verify.verifications.list'],
  ['POST', '/api/v2/totp/secrets', 'v2.totp.secrets.create'],
  ['GET', '/api/v2/totp/secrets', 'v2.totp.secrets.list'],
  ['DELETE', '/api/v2/totp/secrets/s1', 'v2.totp.secrets.delete'],
  ['GET', '/api/v2/totp/code/s1', 'v2.totp.getCode'],
  ['GET', '/api/v2/seats/seat_1', 'v2.seats.retrieve'],
  ['GET', '/api/v2/seats', 'v2.seats.list'],
  ['GET', '/api/v2/seats/count', 'v2.seats.count'],
  ['GET', `/api/location/${ALICE}`, 'location.retrieve'],
  ['GET', '/api/location', 'location.list'],
  ['GET', `/api/location/${ALICE}/watch`, 'location.watch'],
  ['POST', '/api/request-location', 'requestLocation.create'],
  ['POST', '/api/send-carousel', 'sendCarousel.send'],
  ['POST', '/api/messages/some-handle/update-app-card', 'messages.updateAppCard'],
  ['GET', `/api/lines/${ALICE}/call-forwarding`, 'lines.callForwarding.retrieve'],
  ['PUT', `/api/lines/${ALICE}/call-forwarding`, 'lines.callForwarding.update'],
  ['DELETE', `/api/lines/${ALICE}/call-forwarding`, 'lines.callForwarding.delete'],
  ['POST', '/v3/verified-contacts', 'verifiedContacts.create'],
  ['GET', `/v3/verified-contacts/${ALICE}`, 'verifiedContacts.retrieve'],
  ['GET', '/v3/verified-contacts', 'verifiedContacts.list'],
  ['POST', '/api/v2/contacts/verify', 'contacts.verify'],
];

describe('SDK calls out of scope', () => {
  it.each(CALLS)('%s %s answers 501/5010 naming %s, without a retry', async (method, path, sdkCall) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const body = method === 'GET' ? undefined : { anything: 'at all' };
    const response = await t.call(method, path, account, body);
    expect(response.status, show(response.body)).toBe(501);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const message = `${sdkCall} is not supported by textrelay`;
    expect(response.body).toEqual({ status: 'ERROR', error_code: 5010, error_message: message, message, error_detail: null });
  });

  it.each(CALLS)('%s %s checks the credentials first (401)', async (method, path) => {
    const t = makeTestApp();
    const response = await t.call(method, path, undefined, method === 'GET' ? undefined : {});
    expect(response.status, show(response.body)).toBe(401);
    expect(response.body.error_code).toBe(4010);
  });

  it('documents each of them under "Not supported" in /openapi.json', async () => {
    const t = makeTestApp();
    const doc = (await t.call('GET', '/openapi.json', undefined)).body;
    for (const [method, path] of CALLS) {
      const paths = Object.entries(doc.paths as Record<string, Record<string, any>>);
      // A literal path first: /api/v2/contacts/verify also fits the template /api/v2/contacts/{phoneNumber}.
      const documented =
        paths.find(([template]) => template === path) ??
        paths.find(([template]) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(path));
      expect(documented, `${method} ${path}`).toBeDefined();
      const operation = documented![1][method.toLowerCase()];
      expect(operation?.tags, `${method} ${path}`).toEqual(['Not supported']);
      expect(Object.keys(operation.responses)).toContain('501');
    }
  });

  it('refuses app_card on a send with 501/5010, sending nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', app_card: { url: 'x' } });
    expect(response.status, show(response.body)).toBe(501);
    expect(response.body.error_code).toBe(5010);
    expect(response.body.error_message).toContain('app_card');
    expect((await t.call('GET', '/api/v2/messages', account)).body.data).toEqual([]);
  });
});
