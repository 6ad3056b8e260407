import { ErrorCode } from '../../../domain/error-codes.ts';
import { AppError } from '../../../services/app-error.ts';
import type { CarrierDirectory } from '../../../services/carrier-directory.ts';
import { createRouter, limitBody } from '../../router.ts';

/** Where each configured carrier's webhooks post: the carrier's own handler checks who calls and answers in its own format. */
export const CARRIER_WEBHOOKS_PREFIX = '/webhooks/carriers';

/**
 * Hands `/webhooks/carriers/<name>/...` to that carrier. Carriers speak their own protocols (form
 * posts, TwiML answers), so these paths are not part of the OpenAPI document; an unknown or
 * unconfigured carrier is a plain 404.
 */
export function carrierWebhooksRouter(carriers: CarrierDirectory) {
  const router = createRouter();
  router.all(`${CARRIER_WEBHOOKS_PREFIX}/:carrier/*`, limitBody, async (c) => {
    const carrier = carriers.get(c.req.param('carrier'));
    if (!carrier) throw new AppError(ErrorCode.notFound, 'Not found');
    return carrier.webhooks(c.req.raw);
  });
  return router;
}
