import { describe, expect, it, vi } from 'vitest';
import { assertPublicUrl, blockedAddressReason, type AddressLookup } from '../../src/runtime/targets/address-guard.js';
import { failure } from '../support/target-context.js';

/** A resolver that knows only the names it is given, so no test touches real DNS. */
function stubLookup(table: Record<string, string[]>): AddressLookup {
  return vi.fn(async (host: string) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
}

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'cloud metadata endpoint'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'cloud metadata endpoint'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata endpoint'],
    ['::127.0.0.1', 'loopback'], // ipaddr.js reads the dotted form as IPv4-mapped
    ['::7f00:1', 'IPv4-compatible IPv6'],
    ['::808:808', 'IPv4-compatible IPv6'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['not-an-ip', 'not an IP address'],
  ])('blocks %s (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows public unicast %s',
    (address) => {
      expect(blockedAddressReason(address)).toBeUndefined();
    },
  );
});

describe('assertPublicUrl', () => {
  it.each([
    'http://127.0.0.1:8080/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/', // the URL parser rewrites it to [::7f00:1]
    'http://2130706433/', // decimal 127.0.0.1; the URL parser normalises it
    'http://0x7f.1/',
    'http://0/',
    'https://169.254.169.254/latest/meta-data/',
  ])('checks the IP literal %s without a lookup', async (url) => {
    const lookup = stubLookup({});
    const err = await failure(assertPublicUrl(new URL(url), lookup));
    expect(err.code).toBe('HTTP_BLOCKED');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('allows a name whose every address is public and returns them', async () => {
    const lookup = stubLookup({ 'public.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    await expect(assertPublicUrl(new URL('https://public.test/hook'), lookup)).resolves.toEqual([
      '93.184.216.34',
      '2606:2800:220:1::1',
    ]);
  });

  it('blocks a name if any one of its addresses is private', async () => {
    const lookup = stubLookup({ 'mixed.test': ['93.184.216.34', '10.0.0.7'] });
    const err = await failure(assertPublicUrl(new URL('https://mixed.test/'), lookup));
    expect(err.code).toBe('HTTP_BLOCKED');
    expect(err.details).toMatchObject({ address: '10.0.0.7', reason: 'private' });
    expect(err.message).toContain('CRONQL_HTTP_ALLOW_PRIVATE');
  });

  it.each(['http://metadata.google.internal/', 'http://METADATA.google.internal./computeMetadata/v1/'])(
    'blocks %s by name, before any lookup',
    async (url) => {
      const lookup = stubLookup({ 'metadata.google.internal': ['93.184.216.34'] });
      const err = await failure(assertPublicUrl(new URL(url), lookup));
      expect(err.code).toBe('HTTP_BLOCKED');
      expect(lookup).not.toHaveBeenCalled();
    },
  );

  it('reports a name that does not resolve as HTTP_NETWORK', async () => {
    const err = await failure(assertPublicUrl(new URL('http://nowhere.test/'), stubLookup({})));
    expect(err.code).toBe('HTTP_NETWORK');
    expect(err.message).toContain('ENOTFOUND');
  });

  it('reports a name with no addresses as HTTP_NETWORK', async () => {
    const err = await failure(assertPublicUrl(new URL('http://empty.test/'), stubLookup({ 'empty.test': [] })));
    expect(err.code).toBe('HTTP_NETWORK');
  });

  it('blocks localhost through the system resolver', async () => {
    const err = await failure(assertPublicUrl(new URL('http://localhost:4000/')));
    expect(err.code).toBe('HTTP_BLOCKED');
  });
});
