// Event objects as the engine writes them — pure.
import type { ContainerRecord } from '../../types/container';
import type { EngineEvent } from '../../types/event';

export function toEventJSON(e: EngineEvent): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (e.Type === 'container' || e.Type === 'image') {
    out.status = e.Action;
    out.id = e.Actor.ID;
    if (e.Type === 'container' && e.Actor.Attributes.image !== undefined) out.from = e.Actor.Attributes.image;
  }
  out.Type = e.Type;
  out.Action = e.Action;
  out.Actor = { ID: e.Actor.ID, Attributes: e.Actor.Attributes };
  // The spec's event object has no scope; the reference sends "local" on every event of a daemon outside a swarm.
  out.scope = 'local';
  out.time = e.time;
  out.timeNano = e.timeNano;
  return out;
}

/** A container event's actor attributes: the container's labels, its image as given and its name. */
export function containerAttributes(rec: ContainerRecord, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(rec.Config.Labels ?? {}), image: rec.ImageName, name: rec.Name.slice(1), ...extra };
}
