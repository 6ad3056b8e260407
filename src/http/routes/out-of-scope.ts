import { createRoute, z } from '@hono/zod-openapi';
import { ErrorCode } from '../../domain/error-codes.ts';
import { AppError } from '../../services/app-error.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { API_SECURITY, apiErrors } from '../openapi.ts';
import { apiRoute, createRouter } from '../router.ts';

/**
 * The SDK's calls textrelay does not offer: each answers 501 (error_code 5010, no retry) naming
 * the call, after the credentials are checked, instead of a 404 that reads like a wrong URL.
 */
const NOT_SUPPORTED = [
  ['post', '/v3/auth/tokens', 'auth.tokens.create'],
  ['delete', '/v3/auth/tokens/{tokenID}', 'auth.tokens.revoke'],
  ['post', '/api/v2/verify/services/{serviceSid}/verifications', 'verify.verifications.create'],
  ['get', '/api/v2/verify/services/{service_sid}/verifications/{verificationSid}', 'verify.verifications.retrieve'],
  ['get', '/api/v2/verify/verifications', 'verify.verifications.list'],
  ['post', '/api/v2/totp/secrets', 'v2.totp.secrets.create'],
  ['get', '/api/v2/totp/secrets', 'v2.totp.secrets.list'],
  ['delete', '/api/v2/totp/secrets/{secretID}', 'v2.totp.secrets.delete'],
  ['get', '/api/v2/totp/code/{secretID}', 'v2.totp.getCode'],
  // Before /seats/{seatID}, which would otherwise take "count" for an id.
  ['get', '/api/v2/seats/count', 'v2.seats.count'],
  ['get', '/api/v2/seats/{seatID}', 'v2.seats.retrieve'],
  ['get', '/api/v2/seats', 'v2.seats.list'],
  ['get', '/api/location/{number}/watch', 'location.watch'],
  ['get', '/api/location/{number}', 'location.retrieve'],
  ['get', '/api/location', 'location.list'],
  ['post', '/api/request-location', 'requestLocation.create'],
  ['post', '/api/send-carousel', 'sendCarousel.send'],
  ['post', '/api/messages/{messageHandle}/update-app-card', 'messages.updateAppCard'],
  ['get', '/api/lines/{sendblueNumber}/call-forwarding', 'lines.callForwarding.retrieve'],
  ['put', '/api/lines/{sendblueNumber}/call-forwarding', 'lines.callForwarding.update'],
  ['delete', '/api/lines/{sendblueNumber}/call-forwarding', 'lines.callForwarding.delete'],
  ['post', '/v3/verified-contacts', 'verifiedContacts.create'],
  ['get', '/v3/verified-contacts/{phoneNumber}', 'verifiedContacts.retrieve'],
  ['get', '/v3/verified-contacts', 'verifiedContacts.list'],
  ['post', '/api/v2/contacts/verify', 'contacts.verify'],
] as const;

function notSupported(sdkCall: string): AppError {
  return new AppError(ErrorCode.notImplemented, `${sdkCall} is not supported by textrelay`);
}

/** `v2.totp.getCode` -> `unsupportedVTotpGetCode`: the document's ids are letters only. */
function operationIdOf(sdkCall: string): string {
  const words = sdkCall.replace(/\d/g, '').split('.');
  return `unsupported${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}`;
}

/** `{a}/{b}` in a path: its parameters, declared so the document lists them. */
function pathParams(path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  if (names.length === 0) return undefined;
  return z.object(Object.fromEntries(names.map((name) => [name, z.string().openapi({ param: { name, in: 'path' } })])));
}

export function outOfScopeRouter(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'message', 'none');
  const router = createRouter();
  for (const [method, path, sdkCall] of NOT_SUPPORTED) {
    const params = pathParams(path);
    const route = createRoute({
      method,
      path,
      tags: ['Not supported'],
      operationId: operationIdOf(sdkCall),
      summary: `${sdkCall}: not supported by textrelay (501)`,
      security: API_SECURITY,
      ...(params ? { request: { params } } : {}),
      responses: apiErrors(
        'message',
        { 501: `${sdkCall} is not supported by textrelay (5010); retrying does not help` },
        { body: method !== 'get', writes: false },
      ),
    });
    router.openapi({ ...route, middleware }, () => {
      throw notSupported(sdkCall);
    });
  }
  return router;
}
