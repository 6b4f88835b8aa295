// Service and task records → the wire's Service and Task objects as the reference (Docker 20.10) writes them at 1.24
// — pure. Timestamps are stored as RFC 3339 strings already.
import type { ServiceRecord, TaskRecord, Versioned } from '../../types/swarm';
import type { NetworkRecord } from '../../types/network';

export function toServiceJSON(v: Versioned<ServiceRecord>): Record<string, unknown> {
  const s = v.value;
  const out: Record<string, unknown> = { ID: s.id, Version: { Index: v.version }, CreatedAt: s.createdAt, UpdatedAt: s.updatedAt, Spec: s.spec };
  if (s.previousSpec) out.PreviousSpec = s.previousSpec;
  const endpoint: Record<string, unknown> = { Spec: s.spec.EndpointSpec ?? {} };
  if (s.ports.length) endpoint.Ports = s.ports;
  if (s.virtualIPs?.length) endpoint.VirtualIPs = s.virtualIPs;
  out.Endpoint = endpoint;
  if (s.updateStatus) out.UpdateStatus = s.updateStatus;
  return out;
}

/** The task's Spec on the wire: the TaskTemplate it was made from, without the service-level Runtime. */
function taskSpec(t: TaskRecord): Record<string, unknown> {
  const { Runtime: _runtime, ...spec } = t.Spec;
  return spec;
}

/** A swarm network as a task's NetworksAttachments show it (the reference's swarm object, not the engine's). */
function swarmNetworkJSON(n: NetworkRecord): Record<string, unknown> {
  const { [VNI_OPTION]: vni, ...opts } = n.Options;
  return {
    ID: n.Id,
    Version: { Index: n.version ?? 0 },
    CreatedAt: n.Created,
    UpdatedAt: n.Created,
    Spec: {
      Name: n.Name,
      Labels: n.Labels,
      DriverConfiguration: { Name: 'overlay', ...(Object.keys(opts).length ? { Options: opts } : {}) },
      ...(n.Internal ? { Internal: true } : {}),
      ...(n.Attachable ? { Attachable: true } : {}),
      Scope: 'swarm',
    },
    DriverState: { Name: 'overlay', Options: { ...opts, [VNI_OPTION]: vni } },
    IPAMOptions: { Driver: { Name: 'default' }, Configs: n.IPAM.Config.map((c) => ({ Subnet: c.Subnet, Gateway: c.Gateway })) },
  };
}

const VNI_OPTION = 'com.docker.network.driver.overlay.vxlanid_list';

/** `networks`: the swarm's overlay networks (for NetworksAttachments). */
export function toTaskJSON(v: Versioned<TaskRecord>, networks: NetworkRecord[] = []): Record<string, unknown> {
  const t = v.value;
  const out: Record<string, unknown> = {
    ID: t.ID,
    Version: { Index: v.version },
    CreatedAt: t.CreatedAt,
    UpdatedAt: t.UpdatedAt,
    Labels: t.Labels,
    Spec: taskSpec(t),
    ServiceID: t.ServiceID,
  };
  if (t.Slot !== undefined) out.Slot = t.Slot;
  if (t.NodeID) out.NodeID = t.NodeID;
  const st: Record<string, unknown> = { Timestamp: t.Status.Timestamp, State: t.Status.State, Message: t.Status.Message };
  if (t.Status.Err) st.Err = t.Status.Err;
  if (t.Status.ContainerStatus) st.ContainerStatus = t.Status.ContainerStatus;
  st.PortStatus = {};
  out.Status = st;
  out.DesiredState = t.DesiredState;
  const attached = (t.networks ?? []).flatMap((a) => {
    const n = networks.find((x) => x.Id === a.networkId);
    return n ? [{ Network: swarmNetworkJSON(n), Addresses: [a.addr] }] : [];
  });
  if (attached.length) out.NetworksAttachments = attached;
  return out;
}
