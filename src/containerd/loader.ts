// Loads the containerd protos once, from gen/protos.json: the vendored protos parsed as scripts/gen-proto-types.sh
// and @grpc/proto-loader parse them (keepCase), saved as protobufjs JSON by protos-json.ts (npm run gen:proto). One protobufjs
// root serves both the gRPC services and the messages carried in `Any`s. The service definitions are built here
// with proto-loader's serializers and options; proto-loader itself is not loaded at run time: it would parse the
// text protos (about 0.4 s of start-up) and keep a descriptor of every message for reflection, which berth never
// uses (about 2 MB of heap). A unit test (containerd-protos.test.ts) checks that the JSON matches the protos.
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
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

export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

const API = 'github.com/containerd/containerd/api';
export const SERVICE_FILES = [
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
export const ANY_FILES = [
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

/** gen/protos.json whether running from src/ (ts) or dist/src/ (compiled; tsc does not copy it). */
export function protosJsonPath(): string {
  for (const rel of ['gen', '../../../src/containerd/gen']) {
    const p = path.resolve(__dirname, rel, 'protos.json');
    if (fs.existsSync(p)) return p;
  }
  throw new Error('cannot find src/containerd/gen/protos.json (npm run gen:proto)');
}

type ToObjectOptions = protobuf.IConversionOptions;
const DECODE_OPTIONS: ToObjectOptions = { longs: String, enums: String, defaults: true, oneofs: true };

// As @grpc/proto-loader's createSerializer/createDeserializer.
function serializer(type: protobuf.Type): (arg: object) => Buffer {
  return (arg) => {
    if (Array.isArray(arg)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    const buf = type.encode(type.fromObject(arg)).finish() as Buffer;
    // A message under 4 KiB is a slice of Node's 8 KiB Buffer pool, and grpc-js keeps a call's request until the
    // call ends (its retry buffer): each pending Wait (one per running container) pinned a whole slab, 180 of them
    // (1.4 MB) with 300 running. Such a message is copied into memory of its own size.
    if (buf.byteLength === buf.buffer.byteLength) return buf;
    const own = Buffer.allocUnsafeSlow(buf.byteLength);
    buf.copy(own);
    return own;
  };
}
function deserializer(type: protobuf.Type): (buf: Buffer) => object {
  return (buf) => type.toObject(type.decode(buf), DECODE_OPTIONS);
}

/** lodash's camelCase of a method name, as proto-loader names the lower-case alias (CloseIO → closeIo). */
function camelCase(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [name];
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/** The gRPC service definitions of a resolved root, keyed by full name, as proto-loader builds them. */
function serviceDefinitions(root: protobuf.Root): Record<string, grpc.ServiceDefinition> {
  const defs: Record<string, grpc.ServiceDefinition> = {};
  const walk = (ns: protobuf.NamespaceBase): void => {
    for (const obj of ns.nestedArray) {
      if (obj instanceof protobuf.Service) {
        const name = obj.fullName.slice(1);
        const def: Record<string, grpc.MethodDefinition<object, object>> = {};
        for (const m of obj.methodsArray) {
          const req = m.resolvedRequestType!;
          const res = m.resolvedResponseType!;
          def[m.name] = {
            path: `/${name}/${m.name}`,
            requestStream: !!m.requestStream,
            responseStream: !!m.responseStream,
            requestSerialize: serializer(req),
            requestDeserialize: deserializer(req),
            responseSerialize: serializer(res),
            responseDeserialize: deserializer(res),
            originalName: camelCase(m.name),
          };
        }
        defs[name] = def;
      } else if (obj instanceof protobuf.Namespace) {
        walk(obj);
      }
    }
  };
  walk(root);
  return defs;
}

export function loadProtos(): LoadedProtos {
  const root = protobuf.Root.fromJSON(JSON.parse(fs.readFileSync(protosJsonPath(), 'utf8')));
  root.resolveAll();
  return { grpc: grpc.loadPackageDefinition(serviceDefinitions(root)) as unknown as ContainerdProto, root };
}
