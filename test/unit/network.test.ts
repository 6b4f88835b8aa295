import { canonicalCidr6, contains, contains6, macAddress6, macFromIPv4, nextAddress, defaultGateway, defaultGateway6, overlaps, overlapsAny, parseCidr, parseCidr6, pickSubnet, rangeBounds } from '../../src/network/ipam';
import { linkEnv, modeNetwork, ownsNetns, parseLink } from '../../src/services/container-network';
import type { ContainerRecord } from '../../src/types/container';

describe('ipam', () => {
  test('CIDR parsing normalises the base and rejects junk', () => {
    expect(parseCidr('10.1.2.3/16')).toEqual({ base: (10 << 24) + (1 << 16), prefix: 16 });
    expect(() => parseCidr('bad')).toThrow('invalid CIDR address: bad');
    expect(() => parseCidr('10.0.0.300/8')).toThrow();
    expect(() => parseCidr('10.0.0.0/33')).toThrow();
  });
  test('overlap and containment', () => {
    expect(overlaps(parseCidr('10.0.0.0/8'), parseCidr('10.20.0.0/16'))).toBe(true);
    expect(overlaps(parseCidr('10.20.0.0/16'), parseCidr('10.21.0.0/16'))).toBe(false);
    expect(contains(parseCidr('192.168.1.0/24'), '192.168.1.200')).toBe(true);
    expect(contains(parseCidr('192.168.1.0/24'), '192.168.2.1')).toBe(false);
  });
  test('the engine default pools, skipping what is taken', () => {
    expect(pickSubnet([])).toBe('172.17.0.0/16');
    expect(pickSubnet(['172.17.0.0/16', '172.18.5.0/24'])).toBe('172.19.0.0/16');
    // daemon.json default-address-pools: each base split by its size, in order, then the next pool
    const pools = [{ base: '10.10.0.0/23', size: 24 }, { base: '10.20.0.0/16', size: 20 }];
    expect(pickSubnet([], pools)).toBe('10.10.0.0/24');
    expect(pickSubnet(['10.10.0.0/24'], pools)).toBe('10.10.1.0/24');
    expect(pickSubnet(['10.10.0.0/23', '10.20.0.0/19'], pools)).toBe('10.20.32.0/20');
    expect(() => pickSubnet(['10.0.0.0/8'], pools)).toThrow('could not find an available, non-overlapping IPv4 address pool');
    // the reference's 404 (docker-py's suite at 1.22 and 1.23 on a reference whose pools were taken)
    expect(() => pickSubnet(['10.0.0.0/8'], pools)).toThrow(expect.objectContaining({ kind: 'NotFound' }));
    expect(pickSubnet(['172.16.0.0/12'])).toBe('192.168.0.0/20');
    expect(defaultGateway('10.99.0.0/24')).toBe('10.99.0.1');
    // The range's own first address is assignable (the engine gives .128 first), the subnet's broadcast is not.
    expect(rangeBounds('10.99.0.128/25', '10.99.0.0/24')).toEqual({ rangeStart: '10.99.0.128', rangeEnd: '10.99.0.254' });
    expect(rangeBounds('10.99.0.0/25', '10.99.0.0/24')).toEqual({ rangeStart: '10.99.0.1', rangeEnd: '10.99.0.127' });
    expect(rangeBounds('10.99.1.0/24', '10.99.0.0/16')).toEqual({ rangeStart: '10.99.1.0', rangeEnd: '10.99.1.255' });
  });
});

describe('addresses and MACs as the engine hands them out', () => {
  test('the MAC is 02:42 and the IPv4 address\'s bytes', () => {
    expect([macFromIPv4('172.17.0.2'), macFromIPv4('10.123.0.77'), macFromIPv4('192.168.255.254')]).toEqual(['02:42:ac:11:00:02', '02:42:0a:7b:00:4d', '02:42:c0:a8:ff:fe']);
  });

  test('host-local\'s next address: after the last handed out, wrapping, skipping the gateway and leases', () => {
    const taken = new Set(['10.0.0.3']);
    const next = (o: { last?: string; rangeStart?: string; rangeEnd?: string; gateway?: string; subnet?: string }) => nextAddress({ subnet: '10.0.0.0/29', taken: (ip) => taken.has(ip), ...o });
    expect(next({})).toBe('10.0.0.2'); // .1 is the gateway
    expect(next({ last: '10.0.0.2' })).toBe('10.0.0.4');
    expect(next({ last: '10.0.0.6' })).toBe('10.0.0.2'); // .7 is the broadcast address: back to the start
    expect(next({ last: '10.9.9.9' })).toBe('10.0.0.2');
    expect(next({ gateway: '10.0.0.6', last: '10.0.0.4' })).toBe('10.0.0.5');
    expect(next({ gateway: '10.0.0.6', last: '10.0.0.5' })).toBe('10.0.0.1');
    expect(next({ rangeStart: '10.0.0.4', rangeEnd: '10.0.0.5', last: '10.0.0.5' })).toBe('10.0.0.4');
    for (const ip of ['10.0.0.2', '10.0.0.4', '10.0.0.5', '10.0.0.6']) taken.add(ip);
    expect(next({})).toBeUndefined();
  });
});

describe('container networking helpers', () => {
  test('network modes', () => {
    expect(modeNetwork('default')).toBe('bridge');
    expect(modeNetwork(undefined)).toBe('bridge');
    expect(modeNetwork('container:abc')).toBeUndefined();
    expect(modeNetwork('appnet')).toBe('appnet');
    expect([ownsNetns('default'), ownsNetns('appnet'), ownsNetns('host'), ownsNetns('none'), ownsNetns('container:x')]).toEqual([true, true, false, false, false]);
  });
  test('links in every form the engine accepts', () => {
    expect(parseLink('db')).toEqual(['db', 'db']);
    expect(parseLink('db:cache')).toEqual(['db', 'cache']);
    expect(parseLink('/db:/web/cache')).toEqual(['db', 'cache']);
  });
  test('link environment like the engine', () => {
    const target = { Config: { ExposedPorts: { '6379/tcp': {}, '53/udp': {} }, Env: ['PATH=/bin', 'SECRET=x'] } } as unknown as ContainerRecord;
    expect(linkEnv('my-cache', '/web', target, '10.0.0.5')).toEqual([
      'MY_CACHE_PORT=udp://10.0.0.5:53',
      'MY_CACHE_PORT_53_UDP=udp://10.0.0.5:53',
      'MY_CACHE_PORT_53_UDP_ADDR=10.0.0.5',
      'MY_CACHE_PORT_53_UDP_PORT=53',
      'MY_CACHE_PORT_53_UDP_PROTO=udp',
      'MY_CACHE_PORT_6379_TCP=tcp://10.0.0.5:6379',
      'MY_CACHE_PORT_6379_TCP_ADDR=10.0.0.5',
      'MY_CACHE_PORT_6379_TCP_PORT=6379',
      'MY_CACHE_PORT_6379_TCP_PROTO=tcp',
      'MY_CACHE_NAME=/web/my-cache',
      'MY_CACHE_ENV_SECRET=x',
    ]);
  });
});

describe('IPv6 address arithmetic (dual-stack networks)', () => {
  test('CIDRs, containment, overlaps across families, the default gateway printed as Go prints it', () => {
    expect(defaultGateway6('2001:db8:b::/64')).toBe('2001:db8:b::1');
    expect(defaultGateway6('fd00:0:0:1::/64')).toBe('fd00:0:0:1::1');
    expect(contains6(parseCidr6('2001:db8:b::/64'), '2001:db8:b::f00')).toBe(true);
    expect(contains6(parseCidr6('2001:db8:b::/64'), '2001:db8:c::1')).toBe(false);
    expect(overlapsAny('2001:db8::/32', '2001:db8:b::/64')).toBe(true);
    expect(overlapsAny('10.0.0.0/8', '2001:db8:b::/64')).toBe(false);
    expect(() => parseCidr6('2001:db8:::/64')).toThrow('invalid');
  });
  test("the default bridge's address from a MAC (the reference's, asked with --fixed-cidr-v6 2001:db8:1::/64)", () => {
    expect(macAddress6('2001:db8:1::/64', '02:42:ac:1d:00:02')).toBe('2001:db8:1::242:ac1d:2');
    expect(macAddress6('2001:db8:1::/64', '02:42:ac:11:00:99')).toBe('2001:db8:1::242:ac11:99');
    expect(macAddress6('2001:db8:1:0:ffff::/80', '02:42:ac:11:00:99')).toBe('2001:db8:1:0:ffff:242:ac11:99');
    expect(canonicalCidr6('2001:db8:1::5/64')).toBe('2001:db8:1::/64');
  });
});
