// Service and task records → the wire's Service and Task objects as the reference (Docker 20.10) writes them at 1.24
// — pure. Timestamps are stored as RFC 3339 strings already.
import type { ServiceRecord, TaskRecord, Versioned } from '../../types/swarm';

export function toServiceJSON(v: Versioned<ServiceRecord>): Record<string, unknown> {
  const s = v.value;
  const out: Record<string, unknown> = { ID: s.id, Version: { Index: v.version }, CreatedAt: s.createdAt, UpdatedAt: s.updatedAt, Spec: s.spec };
  if (s.previousSpec) out.PreviousSpec = s.previousSpec;
  const endpoint: Record<string, unknown> = { Spec: s.spec.EndpointSpec ?? {} };
  if (s.ports.length) endpoint.Ports = s.ports;
  out.Endpoint = endpoint;
  if (s.updateStatus) out.UpdateStatus = s.updateStatus;
  return out;
}

/** The task's Spec on the wire: the TaskTemplate it was made from, without the service-level Runtime. */
function taskSpec(t: TaskRecord): Record<string, unknown> {
  const { Runtime: _runtime, ...spec } = t.Spec;
  return spec;
}

export function toTaskJSON(v: Versioned<TaskRecord>): Record<string, unknown> {
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
  return out;
}
