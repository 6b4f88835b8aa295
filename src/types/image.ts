// A local image as berth resolves it — types only.

export interface OCIImageConfig {
  architecture?: string;
  os?: string;
  created?: string;
  author?: string;
  comment?: string;
  container?: string;
  container_config?: Record<string, unknown>;
  docker_version?: string;
  config?: Record<string, any>;
  rootfs: { type: string; diff_ids: string[] };
  history?: { created?: string; created_by?: string; comment?: string; empty_layer?: boolean; author?: string }[];
}

export interface ResolvedImage {
  id: string;
  /** containerd names pointing at this image (full form). */
  names: string[];
  repoTags: string[];
  repoDigests: string[];
  config: OCIImageConfig;
  chainId: string;
  diffIds: string[];
  size: number;
  created: string;
  manifestDigest: string;
  /** The image this one was committed from, '' if none. */
  parent: string;
  /** When a tag last named it (RFC 3339; undefined: never tagged, e.g. loaded or pulled). */
  lastTagTime?: string;
}

export interface DeleteResult {
  Untagged?: string;
  Deleted?: string;
}

/** The run config that commit's body and the `changes` lines of commit and import set (Docker's field names). */
export interface ImageRunConfig {
  Cmd?: string[] | null;
  Entrypoint?: string[] | null;
  Env?: string[] | null;
  ExposedPorts?: Record<string, object> | null;
  Labels?: Record<string, string> | null;
  User?: string;
  Volumes?: Record<string, object> | null;
  WorkingDir?: string;
  OnBuild?: string[] | null;
  [k: string]: unknown;
}

/** POST /commit's query and body. */
export interface CommitOptions {
  container: string;
  repo?: string;
  tag?: string;
  comment?: string;
  author?: string;
  pause: boolean;
  changes: string[];
  config?: ImageRunConfig | null;
}
