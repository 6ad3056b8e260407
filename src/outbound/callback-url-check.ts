import { ALLOWING_SETTING, classifyLiteralHost, type OutboundPolicy, refusalOf } from '../domain/address-policy.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { isHttpUrl } from '../domain/media-url.ts';
import { AppError } from '../services/app-error.ts';

/** The check every callback URL goes through before it is stored: `status_callback` and receive webhooks. */
export type CallbackUrlCheck = (url: string, field?: string) => void;

/**
 * Refuses a URL that is not http(s), or whose host is an address (or `localhost`) the outbound
 * policy forbids. Names are not resolved here: the guarded client checks what they resolve to
 * at each connection, and a DNS hiccup must not refuse a send.
 */
export function createCallbackUrlCheck(policy: OutboundPolicy): CallbackUrlCheck {
  return (url, field = 'status_callback') => {
    if (!isHttpUrl(url)) throw new AppError(ErrorCode.validation, `${field} must be an absolute http or https URL`);
    const { hostname } = new URL(url);
    const literal = classifyLiteralHost(hostname);
    const refusal = literal && refusalOf(literal, policy);
    if (refusal) {
      const allow = `${ALLOWING_SETTING[literal as keyof typeof ALLOWING_SETTING]}=true`;
      throw new AppError(
        ErrorCode.validation,
        `${field} is refused: ${hostname} is ${refusal}, which the outbound address policy forbids (${allow} allows it)`,
      );
    }
  };
}
