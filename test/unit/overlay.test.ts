// The pure part of overlay networks (src/cluster/overlay-plan.ts): the default pool, VNIs, the create checks with
// the reference's messages, address allocation, MACs and per-node device names.
import { allocateAddress, macOf, overlayDevices, overlayRecord, pickOverlaySubnet, pickVni } from '../../src/cluster/overlay-plan';

const rec = (over: object = {}, existing: any[] = [], routed: string[] = []) => overlayRecord({ Name: 'n', Driver: 'overlay', ...over }, 'id', 't', existing, routed);

test('the default pool: /24s of 10.0.0.0/8 from 10.0.1.0, skipping taken and routed ones', () => {
  expect(pickOverlaySubnet([])).toBe('10.0.1.0/24');
  expect(pickOverlaySubnet(['10.0.1.0/24', '10.0.2.0/23'])).toBe('10.0.4.0/24');
  expect(rec({}, [], ['10.0.1.0/24', '192.168.1.0/24']).IPAM.Config).toEqual([{ Subnet: '10.0.2.0/24', Gateway: '10.0.2.1' }]);
});

test('VNIs from 4097 (or as given), shown in the driver option', () => {
  expect(pickVni([4097, 4099])).toBe(4098);
  const first = rec();
  expect([first.vni, first.Options]).toEqual([4097, { 'com.docker.network.driver.overlay.vxlanid_list': '4097' }]);
  expect(rec({ Options: { 'com.docker.network.driver.overlay.vxlanid_list': '5000' } }).vni).toBe(5000);
  expect(() => rec({ Name: 'm', Options: { 'com.docker.network.driver.overlay.vxlanid_list': '4097' } }, [first])).toThrow('VNI 4097 is already in use');
});

test('the create checks: a taken name, a bad or overlapping subnet, a gateway outside it', () => {
  const first = rec();
  expect(() => rec({}, [first])).toThrow('network with name n already exists');
  expect(() => rec({ IPAM: { Config: [{ Subnet: 'bogus' }] } })).toThrow('Invalid subnet bogus : invalid CIDR address: bogus');
  expect(() => rec({ Name: 'm', IPAM: { Config: [{ Subnet: '10.0.1.128/25' }] } }, [first])).toThrow('Pool overlaps with other one on this address space');
  expect(() => rec({ IPAM: { Config: [{ Subnet: '10.9.0.0/16', Gateway: '10.8.0.1' }] } })).toThrow('failed to allocate gateway (10.8.0.1): Requested address is out of range');
  expect(rec({ IPAM: { Config: [{ Subnet: '10.9.0.0/16', Gateway: '10.9.0.9' }] }, Internal: true, Attachable: true, Labels: { a: 'b' } })).toMatchObject({
    Scope: 'swarm', Driver: 'overlay', Internal: true, Attachable: true, Ingress: false, Labels: { a: 'b' }, ConfiguredSubnet: true, IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: '10.9.0.0/16', Gateway: '10.9.0.9' }] },
  });
});

test('addresses: the lowest free one past the gateway; the MAC is 02:42 and the address', () => {
  const n = rec();
  expect(allocateAddress(n, [])).toBe('10.0.1.2/24');
  expect(allocateAddress(n, ['10.0.1.2/24', '10.0.1.3'])).toBe('10.0.1.4/24');
  const tiny = rec({ IPAM: { Config: [{ Subnet: '10.5.0.0/30' }] } });
  expect(() => allocateAddress(tiny, ['10.5.0.2/30'])).toThrow(/could not find an available IP/);
  expect(macOf('10.0.1.7/24')).toBe('02:42:0a:00:01:07');
});

test('device names carry the VNI and the node VXLAN port in hex, under 15 characters', () => {
  expect(overlayDevices(4097, 4789)).toEqual({ bridge: 'ob1001-12b5', vxlan: 'ox1001-12b5' });
  expect(overlayDevices(16777215, 65535).bridge.length).toBeLessThanOrEqual(15);
});
