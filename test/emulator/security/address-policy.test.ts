import { describe, expect, it } from 'vitest';
import { classifyAddress, isSelf, isWildcardAddress, outboundRefusal } from '../../../emulator/net/address-policy.js';

const TABLE: [address: string, expected: 'public' | 'loopback' | 'refused'][] = [
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0.0.0.0', 'refused'],
  ['0.1.2.3', 'refused'],
  ['10.0.0.1', 'refused'],
  ['100.64.0.1', 'refused'],
  ['100.127.255.255', 'refused'],
  ['100.128.0.1', 'public'],
  ['169.254.169.254', 'refused'],
  ['172.16.0.1', 'refused'],
  ['172.31.255.255', 'refused'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'refused'],
  ['192.0.2.10', 'refused'],
  ['198.18.0.1', 'refused'],
  ['198.19.255.255', 'refused'],
  ['198.20.0.1', 'public'],
  ['198.51.100.7', 'refused'],
  ['203.0.113.9', 'refused'],
  ['224.0.0.1', 'refused'],
  ['239.255.255.250', 'refused'],
  ['255.255.255.255', 'refused'],
  ['::', 'refused'],
  ['fe80::1', 'refused'],
  ['fe80::1%eth0', 'refused'],
  ['febf::1', 'refused'],
  ['fc00::1', 'refused'],
  ['fd12:3456::1', 'refused'],
  ['ff02::1', 'refused'],
  ['2001:db8::1', 'refused'],
  ['2001:0db8:85a3::8a2e:370:7334', 'refused'],
  ['::ffff:10.0.0.1', 'refused'],
  ['::ffff:a00:1', 'refused'],
  ['::ffff:169.254.169.254', 'refused'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:8.8.8.8', 'public'],
  ['::10.0.0.1', 'refused'],
  ['64:ff9b::10.0.0.1', 'refused'],
  ['64:ff9b::a9fe:a9fe', 'refused'],
  ['64:ff9b::127.0.0.1', 'refused'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b:1::8.8.8.8', 'refused'],
  ['2002:c0a8:0101::1', 'refused'],
  ['2002:0808:0808::1', 'public'],
  ['not-an-address', 'refused'],
];

describe('outbound address policy', () => {
  it.each(TABLE)('classifies %s as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('refuses the emulator’s own port on any loopback or equal address, and nothing else', () => {
    const self = { host: '127.0.0.1', port: 4010 };
    expect(isSelf('127.0.0.1', 4010, self)).toBe(true);
    expect(isSelf('::1', 4010, self)).toBe(true);
    expect(isSelf('::ffff:127.0.0.1', 4010, self)).toBe(true);
    expect(isSelf('0.0.0.0', 4010, self)).toBe(true);
    expect(isSelf('127.0.0.1', 4011, self)).toBe(false);
    expect(outboundRefusal('127.0.0.1', 4011, self)).toBeNull();
    expect(outboundRefusal('127.0.0.1', 4010, self)).toBe('self');
    expect(outboundRefusal('10.0.0.1', 80, self)).toBe('not_public');
    expect(outboundRefusal('93.184.216.34', 443, self)).toBeNull();
  });

  it('on a wildcard bind, also refuses this machine’s interface addresses at the emulator’s port', () => {
    const self = { host: '0.0.0.0', port: 4010, localAddresses: new Set(['93.184.216.34']) };
    expect(isSelf('93.184.216.34', 4010, self)).toBe(true);
    expect(isSelf('93.184.216.34', 443, self)).toBe(false);
    expect(isSelf('[::1]', 4010, { host: '::', port: 4010 })).toBe(true);
  });
});

describe('isWildcardAddress', () => {
  it.each([
    ['0.0.0.0', true], ['::', true], ['[::]', true], ['0:0:0:0:0:0:0:0', true],
    ['127.0.0.1', false], ['::1', false], ['[::1]', false], ['localhost', false], ['192.168.1.5', false], ['emulator', false],
  ] as const)('says %s means every interface: %s', (host, expected) => {
    expect(isWildcardAddress(host)).toBe(expected);
  });
});
