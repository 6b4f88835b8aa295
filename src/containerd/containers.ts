// The container facade: containerd's container records as services use them — created with berth's labels and a
// placeholder spec, the OCI spec read and replaced as an object (packed as a protobuf Any here), a label set,
// deleted. Services never see a request message.
import type { Containerd } from './client';
import { OCI_SPEC_URL, packJSON, unpackJSON } from './any';
import { ignoreNotFound } from './errors';
import type { OciSpec } from '../types/config';

/**
 * A container record for runc (io.containerd.runc.v2 unless `runtime` names another containerd runtime), over the snapshot `snapshotKey` when it has one; its spec is
 * `spec`, or a placeholder set later.
 */
export async function create(ctr: Containerd, c: { id: string; labels: Record<string, string>; image?: string; snapshotter?: string; snapshotKey?: string; spec?: OciSpec; runtime?: string; systemdCgroup?: boolean }): Promise<void> {
  await ctr.containers.Create({
    container: {
      id: c.id,
      image: c.image ?? '',
      labels: c.labels,
      // runc's options (containerd.runc.v1.Options) with systemd_cgroup (field 9) set: runc's systemd cgroup manager
      runtime: { name: c.runtime ?? 'io.containerd.runc.v2', ...(c.systemdCgroup ? { options: { type_url: 'containerd.runc.v1.Options', value: Buffer.from([0x48, 0x01]) } } : {}) },
      spec: packJSON(OCI_SPEC_URL, c.spec ?? { ociVersion: '1.0.2-dev' }),
      snapshotter: c.snapshotter ?? '',
      snapshot_key: c.snapshotKey ?? '',
    },
  });
}

/** The container's OCI spec; undefined when it has none. */
export async function spec(ctr: Containerd, id: string): Promise<OciSpec | undefined> {
  const c = await ctr.containers.Get({ id });
  return unpackJSON<OciSpec>(c.container?.spec as never);
}

export async function setSpec(ctr: Containerd, id: string, s: OciSpec): Promise<void> {
  await ctr.containers.Update({ container: { id, spec: packJSON(OCI_SPEC_URL, s) }, update_mask: { paths: ['spec'] } });
}

export async function setLabel(ctr: Containerd, id: string, key: string, value: string): Promise<void> {
  await ctr.containers.Update({ container: { id, labels: { [key]: value } }, update_mask: { paths: [`labels.${key}`] } });
}

/** Deletes the record; one that is gone already is fine. */
export async function remove(ctr: Containerd, id: string): Promise<void> {
  await ignoreNotFound(() => ctr.containers.Delete({ id }));
}

/** The ids of the containers that carry label `key` (berth's own: a kubelet's in another namespace are never seen). */
export async function idsWithLabel(ctr: Containerd, key: string): Promise<string[]> {
  const r = await ctr.containers.List({ filters: [] });
  return (r.containers ?? []).filter((c) => c.labels && Object.hasOwn(c.labels, key)).map((c) => c.id);
}
