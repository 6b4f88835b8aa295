// The image facade: containerd's image records (a name pointing at a manifest descriptor, with labels) as services
// use them — listed, read, created, re-pointed, deleted — under a lease when one is given. Services never see a
// request message.
import type { Containerd } from './client';
import type { Descriptor } from './gen/containerd/types/Descriptor';
import type { Image__Output } from './gen/containerd/services/images/v1/Image';

export type ImageRecord = Image__Output;

/** What a name is made to point at: the manifest's descriptor and the record's labels. */
export interface ImageSpec {
  name: string;
  labels: Record<string, string>;
  target: Descriptor;
}

const call = (lease?: string) => (lease ? { lease } : undefined);

/** Every image record of the namespace; with filters (containerd's syntax), those that match any of them. */
export async function list(ctr: Containerd, filters: string[] = []): Promise<ImageRecord[]> {
  return (await ctr.images.List({ filters })).images;
}

/** The record named `name`; throws (NotFound) when there is none. */
export async function get(ctr: Containerd, name: string): Promise<ImageRecord> {
  return (await ctr.images.Get({ name })).image!;
}

/** A new record; throws (AlreadyExists) when the name is taken. */
export async function create(ctr: Containerd, image: ImageSpec, lease?: string): Promise<void> {
  await changing(ctr, ctr.images.Create({ image }, call(lease)));
}

/** Points an existing name at `target` with `labels` (both replaced). */
export async function update(ctr: Containerd, image: ImageSpec, lease?: string): Promise<void> {
  await changing(ctr, ctr.images.Update({ image, update_mask: { paths: ['target', 'labels'] } }, call(lease)));
}

/** Sets one label of image `name` (its other labels and target are kept). */
export async function setLabel(ctr: Containerd, name: string, key: string, value: string): Promise<void> {
  await changing(ctr, ctr.images.Update({ image: { name, labels: { [key]: value } }, update_mask: { paths: [`labels.${key}`] } }));
}

/**
 * Deletes the record; throws (NotFound) when there is none. With `sync`, containerd collects the garbage before it
 * answers (the content and snapshots nothing else references are gone); without, they wait for its next collection,
 * which with the default scheduler comes only after 100 other mutations.
 */
export async function remove(ctr: Containerd, name: string, sync = false): Promise<void> {
  await changing(ctr, ctr.images.Delete({ name, sync }));
}

// ---- changes: what a cache of the list needs to know ---------------------------------------------------------

/**
 * A number that changes whenever the namespace's image records may have: at each write through this facade (before
 * and after it) and at each of containerd's /images/ events (noteChange, from the event bridge). Undefined while no
 * event stream watches them (another client's write would go unseen): nothing is to be cached then.
 */
export function generation(ctr: Containerd): number | undefined {
  return ctr.imageChanges.watched ? ctr.imageChanges.generation : undefined;
}

/** The records may have changed (an /images/ event, or the stream of them opened again after a gap). */
export function noteChange(ctr: Containerd): void {
  ctr.imageChanges.generation++;
}

/** Whether an event stream now reports the namespace's image changes to noteChange. */
export function setWatched(ctr: Containerd, watched: boolean): void {
  ctr.imageChanges.watched = watched;
  noteChange(ctr);
}

async function changing(ctr: Containerd, write: Promise<unknown>): Promise<void> {
  noteChange(ctr);
  try {
    await write;
  } finally {
    noteChange(ctr);
  }
}
