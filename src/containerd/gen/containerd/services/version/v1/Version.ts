// Original file: github.com/containerd/containerd/api/services/version/v1/version.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from '../../../../google/protobuf/Empty';
import type { VersionResponse as _containerd_services_version_v1_VersionResponse, VersionResponse__Output as _containerd_services_version_v1_VersionResponse__Output } from '../../../../containerd/services/version/v1/VersionResponse';

export interface VersionClient extends grpc.Client {
  Version(argument: _google_protobuf_Empty, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _google_protobuf_Empty, metadata: grpc.Metadata, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _google_protobuf_Empty, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  Version(argument: _google_protobuf_Empty, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _google_protobuf_Empty, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _google_protobuf_Empty, metadata: grpc.Metadata, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _google_protobuf_Empty, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  version(argument: _google_protobuf_Empty, callback: grpc.requestCallback<_containerd_services_version_v1_VersionResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface VersionHandlers extends grpc.UntypedServiceImplementation {
  Version: grpc.handleUnaryCall<_google_protobuf_Empty__Output, _containerd_services_version_v1_VersionResponse>;
  
}

export interface VersionDefinition extends grpc.ServiceDefinition {
  Version: MethodDefinition<_google_protobuf_Empty, _containerd_services_version_v1_VersionResponse, _google_protobuf_Empty__Output, _containerd_services_version_v1_VersionResponse__Output>
}
