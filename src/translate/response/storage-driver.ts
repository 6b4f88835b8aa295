// The storage driver's name on the wire. berth keeps root filesystems in containerd's overlayfs snapshotter, whose
// layout (read-only lower directories, an upper and a work directory, one overlay mount) is the engine's overlay2:
// containers, images and /info name it as the reference does, `overlay2` (/info's DriverStatus names the snapshotter).
export function storageDriverName(snapshotter: string): string {
  return snapshotter === 'overlayfs' ? 'overlay2' : snapshotter;
}
