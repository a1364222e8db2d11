import { urlProblem } from '../../src/adapters/http-client';
import { addressProblem, addressRange, ipLiteralOf, isLinkLocalOrMetadata, isNonPublicAddress, nameEmbedsLinkLocalOrMetadata, parseIpv4Literal } from '../../src/domain/network/addresses';

describe('outbound address classifier', () => {
  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.100.100.200', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['192.0.0.170', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('when the IPv4 address is %s, then it is refused as %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  test.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::ffff:169.254.169.254', 'ipv4-mapped'],
    ['::127.0.0.1', 'ipv4-mapped'],
    ['::ffff:0:a9fe:a9fe', 'ipv4-mapped'],
    ['::ffff:0:8.8.8.8', 'ipv4-mapped'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['100::1', 'reserved'],
  ])('when the IPv6 address is %s, then it is refused as %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  test.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:4700::1111', '2a00:1450:4001:82a::200e', '64:ff9b::808:808', '2002:808:808::1'])(
    'when the address %s is public, then it is allowed',
    (ip) => {
      expect(addressRange(ip)).toBeNull();
      expect(isNonPublicAddress(ip)).toBe(false);
    },
  );

  test.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0xA9FEA9FE', '169.254.169.254'],
    ['169.254.43518', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['10.0.0.1.', '10.0.0.1'],
  ])('when an IPv4 literal is written as %s (decimal, octal or hex trick), then it is read as %s and refused', (literal, dotted) => {
    expect(parseIpv4Literal(literal)).toBe(dotted);
    expect(ipLiteralOf(literal)).toBe(dotted);
    expect(isNonPublicAddress(literal)).toBe(true);
  });

  test('when a host name only looks numeric, then it is not an IPv4 literal', () => {
    for (const host of ['example.com', '1.2.3.4.5', '256.1.1.1', '08.1.1.1', '0x1g.1', '1..1', '4294967296', '1.16777216', 'localhost']) expect([host, parseIpv4Literal(host)]).toEqual([host, null]);
    expect(ipLiteralOf('example.com')).toBeNull();
    expect(ipLiteralOf('[fd00:ec2::254]')).toBe('fd00:ec2::254');
    expect(isNonPublicAddress('not an address')).toBe(true);
    expect(isNonPublicAddress('1:2:3:4:5:6:7:8:9')).toBe(true);
  });

  test('when an address is link-local or metadata in any form, then it is refused for payment endpoints whatever the flag; private ones are not', () => {
    for (const ip of ['169.254.169.254', '169.254.1.1', '0xA9FEA9FE', 'fd00:ec2::254', 'fe80::1', '::ffff:169.254.169.254', '100.100.100.200', '168.63.129.16']) expect([ip, isLinkLocalOrMetadata(ip)]).toEqual([ip, true]);
    for (const ip of ['127.0.0.1', '10.0.0.1', '8.8.8.8', 'fd12::1']) expect([ip, isLinkLocalOrMetadata(ip)]).toEqual([ip, false]);
  });

  test('when private addresses are not allowed, then a host resolving to any of them is refused; when allowed, it passes', () => {
    expect(addressProblem('localhost', ['127.0.0.1'], false)).toMatch(/private, loopback or link-local/);
    expect(addressProblem('mixed.example', ['8.8.8.8', '10.0.0.5'], false)).toMatch(/10\.0\.0\.5/);
    expect(addressProblem('metadata', ['169.254.169.254'], false)).not.toBeNull();
    expect(addressProblem('cdn.example', ['8.8.8.8'], false)).toBeNull();
    expect(addressProblem('localhost', ['127.0.0.1'], true)).toBeNull();
    expect(addressProblem('nowhere', [], true)).toMatch(/did not resolve/);
  });
});

/** Issue 38 finding 9: one rule for link-local and metadata targets, whatever OUTBOUND_ALLOW_PRIVATE_NETWORKS says. */
describe('link-local and metadata targets in every spelling', () => {
  test.each([
    ['Oracle Cloud metadata', '192.0.0.192'],
    ['AWS/GCP/Azure metadata', '169.254.169.254'],
    ['AWS ECS task metadata', '169.254.170.2'],
    ['Alibaba metadata', '100.100.100.200'],
    ['Azure wire server', '168.63.129.16'],
    ['AWS IPv6 metadata', 'fd00:ec2::254'],
    ['IPv4 link-local', '169.254.1.1'],
    ['IPv6 link-local', 'fe80::1'],
    ['decimal', '2852039166'],
    ['hex', '0xA9FEA9FE'],
    ['hex per octet', '0xa9.0xfe.0xa9.0xfe'],
    ['octal', '0251.0376.0251.0376'],
    ['two-part', '169.254.43518'],
    ['decimal Oracle', '3221225664'],
    ['IPv4-mapped dotted', '::ffff:169.254.169.254'],
    ['IPv4-mapped hex', '::ffff:a9fe:a9fe'],
    ['IPv4-translated hex', '::ffff:0:a9fe:a9fe'],
    ['IPv4-translated dotted', '::ffff:0:169.254.169.254'],
    ['IPv4-translated Oracle', '::ffff:0:c000:c0'],
    ['IPv4-compatible', '::169.254.169.254'],
    ['bracketed', '[::ffff:0:a9fe:a9fe]'],
    ['NAT64', '64:ff9b::a9fe:a9fe'],
    ['NAT64 dotted', '64:ff9b::169.254.169.254'],
    ['NAT64 local-use', '64:ff9b:1::a9fe:a9fe'],
    ['6to4', '2002:a9fe:a9fe::1'],
    ['Teredo server', '2001:0:a9fe:a9fe::1'],
    ['Teredo client', '2001:0:4136:e378:8000:63bf:5601:5601'],
    ['ISATAP', '2a00:1450::5efe:a9fe:a9fe'],
  ])('when the address is the %s spelling %s, then it is link-local or metadata (refused whatever the flag)', (_, ip) => {
    expect(isLinkLocalOrMetadata(ip)).toBe(true);
    expect(isNonPublicAddress(ip)).toBe(true);
  });

  test.each([
    ['nip.io dotted', '169.254.169.254.nip.io'],
    ['nip.io dotted, deeper', 'www.169.254.169.254.nip.io'],
    ['nip.io Oracle', '192.0.0.192.nip.io'],
    ['sslip.io dashed', '169-254-169-254.sslip.io'],
    ['nip.io dashed with a prefix', 'app-169-254-169-254.nip.io'],
    ['nip.io hex', 'a9fea9fe.nip.io'],
    ['nip.io hex with a prefix', 'magic-a9fea9fe.nip.io'],
    ['decimal label', '2852039166.nip.io'],
    ['hex literal label', '0xa9fea9fe.xip.io'],
    ['sslip.io IPv6 link-local', 'fe80--1.sslip.io'],
    ['sslip.io IPv4-mapped', '--ffff-a9fe-a9fe.sslip.io'],
    ['GCP metadata name', 'metadata.google.internal'],
    ['GCP metadata name, upper case with root dot', 'METADATA.GOOGLE.INTERNAL.'],
    ['AWS metadata name', 'instance-data.ec2.internal'],
  ])('when the host name is the %s form %s, then it is refused as a metadata target', (_, host) => {
    expect(nameEmbedsLinkLocalOrMetadata(host)).toBe(true);
    expect(urlProblem(`https://${host}/`, { allowPrivateNetworks: true })).toBe('must not point to a link-local or metadata address.');
  });

  test.each(['example.com', 'api.stripe.com', 'deadbeef.example.com', '10.0.0.1.nip.io', '127.0.0.1.nip.io', 'v1-2-3.example.com', '169.254.example.com'])(
    'when the host name %s names no link-local or metadata address, then the name rule leaves it alone',
    (host) => {
      expect(nameEmbedsLinkLocalOrMetadata(host)).toBe(false);
    },
  );

  test.each(['https://192.0.0.192/', 'https://[::ffff:0:a9fe:a9fe]/', 'https://0xA9FEA9FE/', 'https://[64:ff9b::a9fe:a9fe]/', 'https://[fe80::1]/', 'https://2852039166/'])(
    'when private networks are allowed and the URL is %s, then it is still refused at save and at call',
    (url) => {
      expect(urlProblem(url, { allowPrivateNetworks: true })).toBe('must not point to a link-local or metadata address.');
      expect(urlProblem(url, { allowPrivateNetworks: false })).toBe('must not point to a link-local or metadata address.');
    },
  );

  test('when private networks are allowed, then loopback and private literals still pass (the flag keeps its meaning for them)', () => {
    expect(urlProblem('http://127.0.0.1:8080/', { allowPrivateNetworks: true })).toBeNull();
    expect(urlProblem('https://10.0.0.1/', { allowPrivateNetworks: true })).toBeNull();
    expect(urlProblem('https://10.0.0.1/', { allowPrivateNetworks: false })).toMatch(/private/);
  });
});
