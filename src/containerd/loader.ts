// Loads the vendored containerd protos once, with the same options scripts/gen-proto-types.sh uses.
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as protobuf from 'protobufjs';
import type { ProtoGrpcType as ContainersProto } from './gen/containers';
import type { ProtoGrpcType as ContentProto } from './gen/content';
import type { ProtoGrpcType as DiffProto } from './gen/diff';
import type { ProtoGrpcType as EventsProto } from './gen/events';
import type { ProtoGrpcType as ImagesProto } from './gen/images';
import type { ProtoGrpcType as IntrospectionProto } from './gen/introspection';
import type { ProtoGrpcType as LeasesProto } from './gen/leases';
import type { ProtoGrpcType as NamespaceProto } from './gen/namespace';
import type { ProtoGrpcType as SnapshotsProto } from './gen/snapshots';
import type { ProtoGrpcType as TasksProto } from './gen/tasks';
import type { ProtoGrpcType as VersionProto } from './gen/version';

/** Finds proto/ whether running from src/ (ts) or dist/src/ (compiled). */
export function protoDir(): string {
  for (const rel of ['../../proto', '../../../proto']) {
    const p = path.resolve(__dirname, rel);
    if (fs.existsSync(path.join(p, 'gogoproto'))) return p;
  }
  throw new Error('cannot find the proto/ directory');
}

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

const API = 'github.com/containerd/containerd/api';
const SERVICE_FILES = [
  `${API}/services/containers/v1/containers.proto`,
  `${API}/services/content/v1/content.proto`,
  `${API}/services/diff/v1/diff.proto`,
  `${API}/services/events/v1/events.proto`,
  `${API}/services/images/v1/images.proto`,
  `${API}/services/introspection/v1/introspection.proto`,
  `${API}/services/leases/v1/leases.proto`,
  `${API}/services/namespaces/v1/namespace.proto`,
  `${API}/services/snapshots/v1/snapshots.proto`,
  `${API}/services/tasks/v1/tasks.proto`,
  `${API}/services/version/v1/version.proto`,
];
/** Message types carried inside `Any`s (events, metrics, runc options). */
const ANY_FILES = [
  `${API}/events/container.proto`,
  `${API}/events/content.proto`,
  `${API}/events/image.proto`,
  `${API}/events/namespace.proto`,
  `${API}/events/snapshot.proto`,
  `${API}/events/task.proto`,
  'github.com/containerd/cgroups/stats/v1/metrics.proto',
  'github.com/containerd/cgroups/v2/stats/metrics.proto',
  'github.com/containerd/containerd/runtime/v2/runc/options/oci.proto',
];

export type ContainerdProto = ContainersProto &
  ContentProto &
  DiffProto &
  EventsProto &
  ImagesProto &
  IntrospectionProto &
  LeasesProto &
  NamespaceProto &
  SnapshotsProto &
  TasksProto &
  VersionProto;

export interface LoadedProtos {
  grpc: ContainerdProto;
  /** protobufjs root for encoding/decoding `Any` payloads. */
  root: protobuf.Root;
}

export function loadProtos(): LoadedProtos {
  const dir = protoDir();
  const def = protoLoader.loadSync(SERVICE_FILES, { ...LOADER_OPTIONS, includeDirs: [dir] });
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(dir, target));
  root.loadSync([...ANY_FILES], { keepCase: true });
  root.resolveAll();
  return { grpc: grpc.loadPackageDefinition(def) as unknown as ContainerdProto, root };
}
