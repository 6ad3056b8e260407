import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ErrorCode } from '../domain/error-codes.ts';
import { isHttpUrl } from '../domain/media-url.ts';
import { AppError } from '../services/app-error.ts';

/**
 * Addresses a callback must never reach when private callbacks are refused: a client could
 * otherwise make textrelay POST into the network it runs in (admin panels, cloud metadata).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d, compatible ::a.b.c.d). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = lower.match(/^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) return dotted[1];
  const hex = lower.match(/^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for loopback, private, link-local, CGNAT, unique-local, metadata and similar addresses, in any notation. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE.check(bare, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return PRIVATE.check(inner, 'ipv4');
  return PRIVATE.check(bare, 'ipv6');
}

export type HostResolver = (hostname: string) => Promise<string[]>;

const systemResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export class PrivateAddressError extends Error {}

/**
 * Throws PrivateAddressError when the URL's host is, or resolves to, a private address. Every
 * address the name resolves to is checked: one private answer is enough to refuse.
 */
export async function assertPublicHost(url: string, resolve: HostResolver = systemResolver): Promise<void> {
  const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(hostname)) addresses = [hostname];
  else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      throw new PrivateAddressError(`${hostname} does not resolve (${(error as Error).message})`);
    }
  }
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined) throw new PrivateAddressError(`${hostname} resolves to a private address (${refused})`);
}

/** The check every callback URL goes through before it is stored: `status_callback` and receive webhooks. */
export type CallbackUrlCheck = (url: string, field?: string) => Promise<void>;

/**
 * With private callbacks allowed (the development default) only the URL's shape is checked;
 * otherwise its host must resolve to public addresses only.
 */
export function createCallbackUrlCheck(options: { allowPrivate: boolean; resolve?: HostResolver }): CallbackUrlCheck {
  return async (url, field = 'status_callback') => {
    if (!isHttpUrl(url)) throw new AppError(ErrorCode.validation, `${field} must be an absolute http or https URL`);
    if (options.allowPrivate) return;
    try {
      await assertPublicHost(url, options.resolve);
    } catch (error) {
      if (error instanceof PrivateAddressError) {
        throw new AppError(ErrorCode.validation, `${field} is refused: ${error.message}; callbacks must reach public addresses`);
      }
      throw error;
    }
  };
}

/**
 * A `lookup` for the dispatcher's sockets that refuses private answers: the check happens on the
 * address actually connected to, so a name that changes its DNS after the send-time check
 * (rebinding) is still refused.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused) return callback(new PrivateAddressError(`${hostname} resolves to a private address (${refused.address})`), '', 0);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};
