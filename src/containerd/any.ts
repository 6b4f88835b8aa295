// The only place that packs or unpacks a protobuf `Any`. OCI runtime-spec types travel as JSON bytes; everything
// else (events, metrics, runc options) is protobuf, with the bare full message name as type_url.
import type * as protobuf from 'protobufjs';

export interface AnyMsg {
  type_url: string;
  value: Buffer | Uint8Array;
}

export const OCI_SPEC_URL = 'types.containerd.io/opencontainers/runtime-spec/1/Spec';
export const OCI_PROCESS_URL = 'types.containerd.io/opencontainers/runtime-spec/1/Process';
export const OCI_RESOURCES_URL = 'types.containerd.io/opencontainers/runtime-spec/1/LinuxResources';

export function packJSON(typeUrl: string, obj: unknown): AnyMsg {
  return { type_url: typeUrl, value: Buffer.from(JSON.stringify(obj)) };
}

export function unpackJSON<T>(any: AnyMsg | null | undefined): T | undefined {
  if (!any || !any.value || any.value.length === 0) return undefined;
  return JSON.parse(Buffer.from(any.value).toString('utf8')) as T;
}

export class AnyCodec {
  constructor(private readonly root: protobuf.Root) {}

  private type(typeUrl: string): protobuf.Type {
    return this.root.lookupType(typeUrl.replace(/^.*\//, ''));
  }

  pack(typeName: string, obj: Record<string, unknown>): AnyMsg {
    const T = this.type(typeName);
    return { type_url: typeName, value: Buffer.from(T.encode(T.fromObject(obj)).finish()) };
  }

  unpack<T = Record<string, unknown>>(any: AnyMsg | null | undefined): T | undefined {
    if (!any || !any.type_url) return undefined;
    const T = this.type(any.type_url);
    return T.toObject(T.decode(Buffer.from(any.value)), { longs: String, enums: String, defaults: true }) as T;
  }
}
