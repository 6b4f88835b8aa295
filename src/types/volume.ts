// A volume (the local driver's or a plugin's) and the volume-driver protocol's shapes — types only.

export interface Volume {
  Name: string;
  Driver: string;
  Mountpoint: string;
  Labels: Record<string, string> | null;
  Options: Record<string, string> | null;
  CreatedAt: string;
  /** created for one container (Config.Volumes / image VOLUME), removed with `rm -v` */
  Anonymous?: boolean;
  /** a driver's status (plugin volumes, from VolumeDriver.Get) */
  Status?: Record<string, unknown>;
}

/** A volume as a driver describes it (VolumeDriver.Get/List). */
export interface DriverVolume {
  Name: string;
  Mountpoint?: string;
  Status?: Record<string, unknown>;
}

/** One volume driver plugin (VolumeDriver.* protocol). */
export interface VolumeDriver {
  /** the name volumes record (a managed plugin's `name:tag`) */
  readonly name: string;
  /** a path in the driver's view → the host's (identity for legacy plugins) */
  scope(p: string): string;
  create(name: string, opts: Record<string, string> | null): Promise<void>;
  remove(name: string): Promise<void>;
  /** mounts for one mount id; the host path */
  mount(name: string, id: string): Promise<string>;
  unmount(name: string, id: string): Promise<void>;
  get(name: string): Promise<DriverVolume>;
  list(): Promise<DriverVolume[]>;
}

export interface VolumeDriverRegistry {
  /** the driver called `name` (404 with the engine's message when there is none) */
  lookup(name: string): Promise<VolumeDriver>;
  /** drivers whose volumes the list includes */
  active(): VolumeDriver[];
}
