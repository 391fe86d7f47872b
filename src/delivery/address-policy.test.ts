import { describe, expect, it } from 'vitest';
import { checkAddress, isForbiddenAddress, isLocalhostName, parseAddress, urlHostAddress, type ForbiddenReason } from './address-policy.js';

const refused: ReadonlyArray<readonly [string, ForbiddenReason]> = [
  // IPv4
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['203.0.113.9', 'reserved'],
  // IPv6
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['100::1', 'reserved'],
  ['64:ff9b:1::a00:1', 'reserved'],
  ['4000::1', 'reserved'],
  // IPv4 carried inside IPv6
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::a9fe:a9fe', 'link-local'],
  ['::808:808', 'reserved'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::ffff:0:8.8.8.8', 'reserved'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  // Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (80ff:fffe)
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
  ['2001:0:a00:1::1', 'private'],
  // Not an address in strict form: refused rather than guessed at
  ['2130706433', 'invalid'],
  ['0x7f.0.0.1', 'invalid'],
  ['127.1', 'invalid'],
  ['010.0.0.1', 'invalid'],
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['[::1]', 'invalid'],
];

const allowed: readonly string[] = [
  '93.184.215.14',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '169.253.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82a::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('isForbiddenAddress', () => {
  it.each(refused)('refuses %s as %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(reason);
  });

  it.each(allowed)('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBeNull();
  });
});

describe('checkAddress', () => {
  it('refuses by class unless private addresses are allowed', () => {
    expect(checkAddress('127.0.0.1', { allowPrivate: false })).toBe('loopback');
    expect(checkAddress('127.0.0.1', { allowPrivate: true })).toBeNull();
    expect(checkAddress('::ffff:10.0.0.1', { allowPrivate: true })).toBeNull();
  });

  it('still refuses what is not an address when private addresses are allowed', () => {
    expect(checkAddress('2130706433', { allowPrivate: true })).toBe('invalid');
    expect(checkAddress('example.com', { allowPrivate: true })).toBe('invalid');
  });
});

describe('parseAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 4],
    ['0:0:0:0:0:0:0:1', '::1', 6],
    ['::ffff:127.0.0.1', '::ffff:7f00:1', 6],
    ['2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111', 6],
  ] as const)('gives %s one canonical spelling', (input, address, family) => {
    expect(parseAddress(input)).toEqual({ address, family });
  });

  it('returns null for names and loose IPv4 spellings', () => {
    expect(parseAddress('example.com')).toBeNull();
    expect(parseAddress('2130706433')).toBeNull();
  });
});

describe('urlHostAddress', () => {
  it.each([
    ['http://127.0.0.1:8080/x', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://[::1]:9/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://[0:0:0:0:0:0:0:1]/', '::1'],
  ])('reads %s as the address %s', (url, address) => {
    const parsed = urlHostAddress(new URL(url));
    expect(parsed?.address).toBe(address);
    expect(isForbiddenAddress(address)).not.toBeNull();
  });

  it('returns null for a host name', () => {
    expect(urlHostAddress(new URL('https://hooks.slack.com/services/T/B/X'))).toBeNull();
    expect(urlHostAddress(new URL('http://localhost:3000/'))).toBeNull();
  });
});

describe('isLocalhostName', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['api.localhost', true],
    ['localhost.example.com', false],
    ['example.com', false],
  ])('%s -> %s', (name, expected) => {
    expect(isLocalhostName(name)).toBe(expected);
  });
});
