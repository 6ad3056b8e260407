import { describe, expect, it } from 'vitest';
import { classifyAddress, classifyLiteralHost, refusalOf } from '../../src/domain/address-policy.ts';

/** The host a URL names, as every outbound request sees it (WHATWG parsing normalizes IPv4 forms). */
function hostOf(url: string): string {
  return new URL(url).hostname;
}

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback, anywhere in 127/8'],
    ['10.0.0.1', 'RFC 1918'],
    ['172.16.0.1', 'RFC 1918'],
    ['172.31.255.254', 'RFC 1918'],
    ['192.168.1.1', 'RFC 1918'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['0.0.0.0', 'this host'],
    ['0.1.2.3', '"this network"'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.88.99.1', 'the old 6to4 relay anycast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'IPv6 loopback'],
    ['[::1]', 'bracketed as in URLs'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fec0::1', 'old site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated) loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated (RFC 6145) loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 well-known prefix to loopback'],
    ['64:ff9b::a00:1', 'NAT64 well-known prefix to 10.0.0.1'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix'],
    ['64:ff9b:1::808:808', 'NAT64 local-use prefix, whatever it embeds'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo with client 127.0.0.1'],
  ])('%s is private (%s)', (address) => {
    expect(classifyAddress(address)).toBe('private');
  });

  it.each([
    ['169.254.169.254', 'AWS, GCP, Azure metadata'],
    ['169.254.170.2', 'ECS task metadata'],
    ['169.254.0.1', 'IPv4 link-local'],
    ['100.100.100.200', 'Alibaba Cloud metadata, inside CGNAT'],
    ['fd00:ec2::254', 'AWS IPv6 metadata, inside unique-local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'with a zone'],
    ['febf::1', 'the end of fe80::/10'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 to metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64 to metadata'],
    ['2002:a9fe:a9fe::', '6to4 of metadata'],
  ])('%s is link-local or metadata (%s)', (address) => {
    expect(classifyAddress(address)).toBe('link-local');
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });

  it('a name is not an address', () => {
    expect(classifyAddress('example.com')).toBeUndefined();
    expect(classifyAddress('hooks.internal')).toBeUndefined();
  });
});

describe('literal hosts of URLs', () => {
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://[::127.0.0.1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b:1::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://192.88.99.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fd00::5]/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://admin.localhost/',
  ])('%s is private before any DNS', (url) => {
    expect(classifyLiteralHost(hostOf(url))).toBe('private');
  });

  it.each(['http://0xa9.254.169.254/', 'http://2852039166/', 'http://[::ffff:169.254.169.254]/'])('%s is the metadata address', (url) => {
    expect(classifyLiteralHost(hostOf(url))).toBe('link-local');
  });

  it('other names wait for their addresses', () => {
    expect(classifyLiteralHost(hostOf('https://hooks.example.com/x'))).toBeUndefined();
    expect(classifyLiteralHost(hostOf('https://localhost.example.com/x'))).toBeUndefined();
  });
});

describe('the policy', () => {
  it('allows public addresses always, and each guarded class only with its own setting', () => {
    const none = { allowPrivate: false, allowLinkLocal: false };
    expect(refusalOf('public', none)).toBeUndefined();
    expect(refusalOf('private', none)).toMatch(/private/);
    expect(refusalOf('link-local', none)).toMatch(/link-local or cloud-metadata/);
    expect(refusalOf('private', { allowPrivate: true, allowLinkLocal: false })).toBeUndefined();
    expect(refusalOf('link-local', { allowPrivate: true, allowLinkLocal: false }), 'private allowed is not metadata allowed').toMatch(
      /metadata/,
    );
    expect(refusalOf('link-local', { allowPrivate: false, allowLinkLocal: true })).toBeUndefined();
  });
});
