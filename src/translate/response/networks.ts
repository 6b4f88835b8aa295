// Network objects as the engine shows them per version (the spec's Network shape): EnableIPv6, Internal and
// Labels from 1.24; Containers with Name only in inspect.
import { ApiVersion, supports } from '../version/features';
import type { NetworkRecord } from '../../types/network';

export interface NetworkEndpointView {
  id: string;
  name: string;
  endpointId: string;
  mac: string;
  ip: string;
  prefixLen: number;
  ip6?: string;
  prefixLen6?: number;
}

export function toNetworkJSON(n: NetworkRecord, v: ApiVersion, endpoints: NetworkEndpointView[], inspect: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { Name: n.Name, Id: n.Id, Created: n.Created, Scope: n.Scope, Driver: n.Driver };
  const v24 = supports(v, 'NetworkIPv6Internal');
  if (v24) out.EnableIPv6 = n.EnableIPv6;
  out.IPAM = {
    Driver: n.IPAM.Driver,
    Options: n.IPAM.Options,
    Config: n.IPAM.Config.map((c) => {
      const e: Record<string, unknown> = {};
      if (c.Subnet) e.Subnet = c.Subnet;
      if (c.IPRange) e.IPRange = c.IPRange;
      if (c.Gateway && !c.GatewayChosen) e.Gateway = c.Gateway;
      if (c.AuxiliaryAddresses && Object.keys(c.AuxiliaryAddresses).length) e.AuxiliaryAddresses = c.AuxiliaryAddresses;
      return e;
    }),
  };
  if (v24) out.Internal = n.Internal;
  // Not in the spec's Network (silent on them); the reference sends them at every version.
  Object.assign(out, { Attachable: !!n.Attachable, Ingress: !!n.Ingress, ConfigFrom: { Network: '' }, ConfigOnly: false });
  const swarm = n.Scope === 'swarm';
  // a swarm network with no container on this node shows null, as the reference's (a local one {})
  out.Containers = swarm && !endpoints.length ? null : Object.fromEntries(
    endpoints.map((e) => [
      e.id,
      { ...(inspect ? { Name: e.name } : {}), EndpointID: e.endpointId, MacAddress: e.mac, IPv4Address: e.ip ? `${e.ip}/${e.prefixLen}` : '', IPv6Address: e.ip6 ? `${e.ip6}/${e.prefixLen6}` : '' },
    ]),
  );
  out.Options = n.Options;
  if (supports(v, 'NetworkLabels')) out.Labels = swarm && !Object.keys(n.Labels).length ? null : n.Labels;
  return out;
}
