import ipaddr from 'ipaddr.js';

/**
 * What an address reaches, from least to most guarded: the internet; the network textrelay runs
 * in (loopback, RFC 1918, CGNAT, unique-local, reserved); link-local and cloud-metadata services.
 */
export type AddressClass = 'public' | 'private' | 'link-local';

/** Which classes outbound requests may reach; public addresses always may. */
export type OutboundPolicy = { allowPrivate: boolean; allowLinkLocal: boolean };

const STRICTNESS: Record<AddressClass, number> = { public: 0, private: 1, 'link-local': 2 };

/** Metadata services outside link-local ranges (Alibaba Cloud, AWS IPv6). */
const CLOUD_METADATA = ['100.100.100.200', 'fd00:ec2::254'].map((address) => ipaddr.parse(address).toNormalizedString());

const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');

function stricter(a: AddressClass, b: AddressClass): AddressClass {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyIpv4(address: ipaddr.IPv4): AddressClass {
  if (CLOUD_METADATA.includes(address.toNormalizedString())) return 'link-local';
  const range = address.range();
  if (range === 'unicast') return 'public';
  return range === 'linkLocal' ? 'link-local' : 'private';
}

function classifyIpv6(address: ipaddr.IPv6): AddressClass {
  if (CLOUD_METADATA.includes(address.toNormalizedString())) return 'link-local';
  const parts = address.parts;
  const lastIpv4 = () => classifyIpv4(ipv4From(parts[6]!, parts[7]!));
  switch (address.range() as string) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return lastIpv4();
    case 'rfc6052':
      // 64:ff9b::/96 translates to the embedded address; the local-use 64:ff9b:1::/48 leads into a private network whatever it embeds.
      return address.match(NAT64_LOCAL_USE) ? stricter('private', lastIpv4()) : lastIpv4();
    case '6to4': // 2002:AABB:CCDD::/48 is the site behind a.b.c.d
      return classifyIpv4(ipv4From(parts[1]!, parts[2]!));
    case 'teredo': // 2001:0:server:...:~client
      return stricter(classifyIpv4(ipv4From(parts[2]!, parts[3]!)), classifyIpv4(ipv4From(~parts[6]! & 0xffff, ~parts[7]! & 0xffff)));
    case 'linkLocal':
      return 'link-local';
    case 'unicast':
      // The deprecated IPv4-compatible form ::a.b.c.d (:: and ::1 have ranges of their own).
      return parts.slice(0, 6).every((part) => part === 0) ? lastIpv4() : 'public';
    default:
      return 'private';
  }
}

/**
 * The class of an IP address in any notation ipaddr.js reads (dotted, decimal, octal or hex IPv4,
 * IPv6 with or without brackets or zone); undefined when `host` is not an address.
 */
export function classifyAddress(host: string): AddressClass | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!ipaddr.isValid(bare)) return undefined;
  const address = ipaddr.parse(bare);
  return address.kind() === 'ipv4' ? classifyIpv4(address as ipaddr.IPv4) : classifyIpv6(address as ipaddr.IPv6);
}

/**
 * The class a URL's host has before any DNS: an address literal's own, loopback for `localhost`
 * and `*.localhost` (RFC 6761 keeps them on this machine), undefined for other names.
 */
export function classifyLiteralHost(hostname: string): AddressClass | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'private';
  return classifyAddress(name);
}

const DESCRIPTIONS: Record<Exclude<AddressClass, 'public'>, string> = {
  private: 'a private, loopback or reserved address',
  'link-local': 'a link-local or cloud-metadata address',
};

/** The setting that lets each refused class through, so that a refusal can say how to allow it. */
export const ALLOWING_SETTING: Record<Exclude<AddressClass, 'public'>, string> = {
  private: 'TEXTRELAY_ALLOW_PRIVATE_CALLBACKS',
  'link-local': 'TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS',
};

/** Why the policy refuses this class, or undefined when it allows it. */
export function refusalOf(addressClass: AddressClass, policy: OutboundPolicy): string | undefined {
  if (addressClass === 'public') return undefined;
  const allowed = addressClass === 'private' ? policy.allowPrivate : policy.allowLinkLocal;
  return allowed ? undefined : DESCRIPTIONS[addressClass];
}
