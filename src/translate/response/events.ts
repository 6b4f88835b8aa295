// Event objects as the engine writes them — pure.
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
  out.time = e.time;
  out.timeNano = e.timeNano;
  return out;
}
