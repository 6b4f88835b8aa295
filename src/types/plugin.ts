// Managed plugins' records and the plugin config's shapes — types only.

/** A plugin config (media type application/vnd.docker.plugin.v1+json), as the registry holds it. */
export interface PluginConfig {
  Description?: string;
  Documentation?: string;
  Interface?: { Types?: string[]; Socket?: string };
  Entrypoint?: string[] | null;
  WorkDir?: string;
  User?: { UID?: number; GID?: number };
  Network?: { Type?: string };
  Linux?: { Capabilities?: string[] | null; AllowAllDevices?: boolean; Devices?: PluginDevice[] | null };
  Mounts?: PluginMount[] | null;
  PropagatedMount?: string;
  Env?: PluginEnv[] | null;
  Args?: { Name?: string; Description?: string; Settable?: string[] | null; Value?: string[] | null };
  rootfs?: { type?: string; diff_ids?: string[] };
}

export interface PluginMount {
  Name?: string;
  Description?: string;
  Settable?: string[] | null;
  Source?: string | null;
  Destination: string;
  Type?: string;
  Options?: string[] | null;
}

export interface PluginDevice {
  Name?: string;
  Description?: string;
  Settable?: string[] | null;
  Path?: string | null;
}

export interface PluginEnv {
  Name: string;
  Description?: string;
  Settable?: string[] | null;
  Value?: string | null;
}

/** A privilege a plugin asks for (pull's answer, the body of the reference's pull). */
export interface PluginPrivilege {
  Name: string;
  Description: string;
  Value: string[];
}

/** An installed managed plugin, as berth keeps it (<data-root>/plugins/<id>/plugin.json). */
export interface PluginRecord {
  Id: string;
  /** the local name, without tag */
  Name: string;
  Tag: string;
  /** where it was pulled from */
  Reference: string;
  Config: PluginConfig;
  ConfigDigest: string;
  /** the manifest's layers (blobs in containerd's content store, under the plugin's lease) */
  Layers: { mediaType: string; digest: string; size: number }[];
  Enabled: boolean;
}
