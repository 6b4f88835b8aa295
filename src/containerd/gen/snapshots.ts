import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { CleanupRequest as _containerd_services_snapshots_v1_CleanupRequest, CleanupRequest__Output as _containerd_services_snapshots_v1_CleanupRequest__Output } from './containerd/services/snapshots/v1/CleanupRequest';
import type { CommitSnapshotRequest as _containerd_services_snapshots_v1_CommitSnapshotRequest, CommitSnapshotRequest__Output as _containerd_services_snapshots_v1_CommitSnapshotRequest__Output } from './containerd/services/snapshots/v1/CommitSnapshotRequest';
import type { Info as _containerd_services_snapshots_v1_Info, Info__Output as _containerd_services_snapshots_v1_Info__Output } from './containerd/services/snapshots/v1/Info';
import type { ListSnapshotsRequest as _containerd_services_snapshots_v1_ListSnapshotsRequest, ListSnapshotsRequest__Output as _containerd_services_snapshots_v1_ListSnapshotsRequest__Output } from './containerd/services/snapshots/v1/ListSnapshotsRequest';
import type { ListSnapshotsResponse as _containerd_services_snapshots_v1_ListSnapshotsResponse, ListSnapshotsResponse__Output as _containerd_services_snapshots_v1_ListSnapshotsResponse__Output } from './containerd/services/snapshots/v1/ListSnapshotsResponse';
import type { MountsRequest as _containerd_services_snapshots_v1_MountsRequest, MountsRequest__Output as _containerd_services_snapshots_v1_MountsRequest__Output } from './containerd/services/snapshots/v1/MountsRequest';
import type { MountsResponse as _containerd_services_snapshots_v1_MountsResponse, MountsResponse__Output as _containerd_services_snapshots_v1_MountsResponse__Output } from './containerd/services/snapshots/v1/MountsResponse';
import type { PrepareSnapshotRequest as _containerd_services_snapshots_v1_PrepareSnapshotRequest, PrepareSnapshotRequest__Output as _containerd_services_snapshots_v1_PrepareSnapshotRequest__Output } from './containerd/services/snapshots/v1/PrepareSnapshotRequest';
import type { PrepareSnapshotResponse as _containerd_services_snapshots_v1_PrepareSnapshotResponse, PrepareSnapshotResponse__Output as _containerd_services_snapshots_v1_PrepareSnapshotResponse__Output } from './containerd/services/snapshots/v1/PrepareSnapshotResponse';
import type { RemoveSnapshotRequest as _containerd_services_snapshots_v1_RemoveSnapshotRequest, RemoveSnapshotRequest__Output as _containerd_services_snapshots_v1_RemoveSnapshotRequest__Output } from './containerd/services/snapshots/v1/RemoveSnapshotRequest';
import type { SnapshotsClient as _containerd_services_snapshots_v1_SnapshotsClient, SnapshotsDefinition as _containerd_services_snapshots_v1_SnapshotsDefinition } from './containerd/services/snapshots/v1/Snapshots';
import type { StatSnapshotRequest as _containerd_services_snapshots_v1_StatSnapshotRequest, StatSnapshotRequest__Output as _containerd_services_snapshots_v1_StatSnapshotRequest__Output } from './containerd/services/snapshots/v1/StatSnapshotRequest';
import type { StatSnapshotResponse as _containerd_services_snapshots_v1_StatSnapshotResponse, StatSnapshotResponse__Output as _containerd_services_snapshots_v1_StatSnapshotResponse__Output } from './containerd/services/snapshots/v1/StatSnapshotResponse';
import type { UpdateSnapshotRequest as _containerd_services_snapshots_v1_UpdateSnapshotRequest, UpdateSnapshotRequest__Output as _containerd_services_snapshots_v1_UpdateSnapshotRequest__Output } from './containerd/services/snapshots/v1/UpdateSnapshotRequest';
import type { UpdateSnapshotResponse as _containerd_services_snapshots_v1_UpdateSnapshotResponse, UpdateSnapshotResponse__Output as _containerd_services_snapshots_v1_UpdateSnapshotResponse__Output } from './containerd/services/snapshots/v1/UpdateSnapshotResponse';
import type { UsageRequest as _containerd_services_snapshots_v1_UsageRequest, UsageRequest__Output as _containerd_services_snapshots_v1_UsageRequest__Output } from './containerd/services/snapshots/v1/UsageRequest';
import type { UsageResponse as _containerd_services_snapshots_v1_UsageResponse, UsageResponse__Output as _containerd_services_snapshots_v1_UsageResponse__Output } from './containerd/services/snapshots/v1/UsageResponse';
import type { ViewSnapshotRequest as _containerd_services_snapshots_v1_ViewSnapshotRequest, ViewSnapshotRequest__Output as _containerd_services_snapshots_v1_ViewSnapshotRequest__Output } from './containerd/services/snapshots/v1/ViewSnapshotRequest';
import type { ViewSnapshotResponse as _containerd_services_snapshots_v1_ViewSnapshotResponse, ViewSnapshotResponse__Output as _containerd_services_snapshots_v1_ViewSnapshotResponse__Output } from './containerd/services/snapshots/v1/ViewSnapshotResponse';
import type { Mount as _containerd_types_Mount, Mount__Output as _containerd_types_Mount__Output } from './containerd/types/Mount';
import type { DescriptorProto as _google_protobuf_DescriptorProto, DescriptorProto__Output as _google_protobuf_DescriptorProto__Output } from './google/protobuf/DescriptorProto';
import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from './google/protobuf/Empty';
import type { EnumDescriptorProto as _google_protobuf_EnumDescriptorProto, EnumDescriptorProto__Output as _google_protobuf_EnumDescriptorProto__Output } from './google/protobuf/EnumDescriptorProto';
import type { EnumOptions as _google_protobuf_EnumOptions, EnumOptions__Output as _google_protobuf_EnumOptions__Output } from './google/protobuf/EnumOptions';
import type { EnumValueDescriptorProto as _google_protobuf_EnumValueDescriptorProto, EnumValueDescriptorProto__Output as _google_protobuf_EnumValueDescriptorProto__Output } from './google/protobuf/EnumValueDescriptorProto';
import type { EnumValueOptions as _google_protobuf_EnumValueOptions, EnumValueOptions__Output as _google_protobuf_EnumValueOptions__Output } from './google/protobuf/EnumValueOptions';
import type { ExtensionRangeOptions as _google_protobuf_ExtensionRangeOptions, ExtensionRangeOptions__Output as _google_protobuf_ExtensionRangeOptions__Output } from './google/protobuf/ExtensionRangeOptions';
import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from './google/protobuf/FeatureSet';
import type { FeatureSetDefaults as _google_protobuf_FeatureSetDefaults, FeatureSetDefaults__Output as _google_protobuf_FeatureSetDefaults__Output } from './google/protobuf/FeatureSetDefaults';
import type { FieldDescriptorProto as _google_protobuf_FieldDescriptorProto, FieldDescriptorProto__Output as _google_protobuf_FieldDescriptorProto__Output } from './google/protobuf/FieldDescriptorProto';
import type { FieldMask as _google_protobuf_FieldMask, FieldMask__Output as _google_protobuf_FieldMask__Output } from './google/protobuf/FieldMask';
import type { FieldOptions as _google_protobuf_FieldOptions, FieldOptions__Output as _google_protobuf_FieldOptions__Output } from './google/protobuf/FieldOptions';
import type { FileDescriptorProto as _google_protobuf_FileDescriptorProto, FileDescriptorProto__Output as _google_protobuf_FileDescriptorProto__Output } from './google/protobuf/FileDescriptorProto';
import type { FileDescriptorSet as _google_protobuf_FileDescriptorSet, FileDescriptorSet__Output as _google_protobuf_FileDescriptorSet__Output } from './google/protobuf/FileDescriptorSet';
import type { FileOptions as _google_protobuf_FileOptions, FileOptions__Output as _google_protobuf_FileOptions__Output } from './google/protobuf/FileOptions';
import type { GeneratedCodeInfo as _google_protobuf_GeneratedCodeInfo, GeneratedCodeInfo__Output as _google_protobuf_GeneratedCodeInfo__Output } from './google/protobuf/GeneratedCodeInfo';
import type { MessageOptions as _google_protobuf_MessageOptions, MessageOptions__Output as _google_protobuf_MessageOptions__Output } from './google/protobuf/MessageOptions';
import type { MethodDescriptorProto as _google_protobuf_MethodDescriptorProto, MethodDescriptorProto__Output as _google_protobuf_MethodDescriptorProto__Output } from './google/protobuf/MethodDescriptorProto';
import type { MethodOptions as _google_protobuf_MethodOptions, MethodOptions__Output as _google_protobuf_MethodOptions__Output } from './google/protobuf/MethodOptions';
import type { OneofDescriptorProto as _google_protobuf_OneofDescriptorProto, OneofDescriptorProto__Output as _google_protobuf_OneofDescriptorProto__Output } from './google/protobuf/OneofDescriptorProto';
import type { OneofOptions as _google_protobuf_OneofOptions, OneofOptions__Output as _google_protobuf_OneofOptions__Output } from './google/protobuf/OneofOptions';
import type { ServiceDescriptorProto as _google_protobuf_ServiceDescriptorProto, ServiceDescriptorProto__Output as _google_protobuf_ServiceDescriptorProto__Output } from './google/protobuf/ServiceDescriptorProto';
import type { ServiceOptions as _google_protobuf_ServiceOptions, ServiceOptions__Output as _google_protobuf_ServiceOptions__Output } from './google/protobuf/ServiceOptions';
import type { SourceCodeInfo as _google_protobuf_SourceCodeInfo, SourceCodeInfo__Output as _google_protobuf_SourceCodeInfo__Output } from './google/protobuf/SourceCodeInfo';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from './google/protobuf/UninterpretedOption';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  containerd: {
    services: {
      snapshots: {
        v1: {
          CleanupRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_CleanupRequest, _containerd_services_snapshots_v1_CleanupRequest__Output>
          CommitSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_CommitSnapshotRequest, _containerd_services_snapshots_v1_CommitSnapshotRequest__Output>
          Info: MessageTypeDefinition<_containerd_services_snapshots_v1_Info, _containerd_services_snapshots_v1_Info__Output>
          Kind: EnumTypeDefinition
          ListSnapshotsRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_ListSnapshotsRequest, _containerd_services_snapshots_v1_ListSnapshotsRequest__Output>
          ListSnapshotsResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_ListSnapshotsResponse, _containerd_services_snapshots_v1_ListSnapshotsResponse__Output>
          MountsRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_MountsRequest, _containerd_services_snapshots_v1_MountsRequest__Output>
          MountsResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_MountsResponse, _containerd_services_snapshots_v1_MountsResponse__Output>
          PrepareSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_PrepareSnapshotRequest, _containerd_services_snapshots_v1_PrepareSnapshotRequest__Output>
          PrepareSnapshotResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_PrepareSnapshotResponse, _containerd_services_snapshots_v1_PrepareSnapshotResponse__Output>
          RemoveSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_RemoveSnapshotRequest, _containerd_services_snapshots_v1_RemoveSnapshotRequest__Output>
          Snapshots: SubtypeConstructor<typeof grpc.Client, _containerd_services_snapshots_v1_SnapshotsClient> & { service: _containerd_services_snapshots_v1_SnapshotsDefinition }
          StatSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_StatSnapshotRequest, _containerd_services_snapshots_v1_StatSnapshotRequest__Output>
          StatSnapshotResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_StatSnapshotResponse, _containerd_services_snapshots_v1_StatSnapshotResponse__Output>
          UpdateSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_UpdateSnapshotRequest, _containerd_services_snapshots_v1_UpdateSnapshotRequest__Output>
          UpdateSnapshotResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_UpdateSnapshotResponse, _containerd_services_snapshots_v1_UpdateSnapshotResponse__Output>
          UsageRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_UsageRequest, _containerd_services_snapshots_v1_UsageRequest__Output>
          UsageResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_UsageResponse, _containerd_services_snapshots_v1_UsageResponse__Output>
          ViewSnapshotRequest: MessageTypeDefinition<_containerd_services_snapshots_v1_ViewSnapshotRequest, _containerd_services_snapshots_v1_ViewSnapshotRequest__Output>
          ViewSnapshotResponse: MessageTypeDefinition<_containerd_services_snapshots_v1_ViewSnapshotResponse, _containerd_services_snapshots_v1_ViewSnapshotResponse__Output>
        }
      }
    }
    types: {
      Mount: MessageTypeDefinition<_containerd_types_Mount, _containerd_types_Mount__Output>
    }
  }
  gogoproto: {
  }
  google: {
    protobuf: {
      DescriptorProto: MessageTypeDefinition<_google_protobuf_DescriptorProto, _google_protobuf_DescriptorProto__Output>
      Edition: EnumTypeDefinition
      Empty: MessageTypeDefinition<_google_protobuf_Empty, _google_protobuf_Empty__Output>
      EnumDescriptorProto: MessageTypeDefinition<_google_protobuf_EnumDescriptorProto, _google_protobuf_EnumDescriptorProto__Output>
      EnumOptions: MessageTypeDefinition<_google_protobuf_EnumOptions, _google_protobuf_EnumOptions__Output>
      EnumValueDescriptorProto: MessageTypeDefinition<_google_protobuf_EnumValueDescriptorProto, _google_protobuf_EnumValueDescriptorProto__Output>
      EnumValueOptions: MessageTypeDefinition<_google_protobuf_EnumValueOptions, _google_protobuf_EnumValueOptions__Output>
      ExtensionRangeOptions: MessageTypeDefinition<_google_protobuf_ExtensionRangeOptions, _google_protobuf_ExtensionRangeOptions__Output>
      FeatureSet: MessageTypeDefinition<_google_protobuf_FeatureSet, _google_protobuf_FeatureSet__Output>
      FeatureSetDefaults: MessageTypeDefinition<_google_protobuf_FeatureSetDefaults, _google_protobuf_FeatureSetDefaults__Output>
      FieldDescriptorProto: MessageTypeDefinition<_google_protobuf_FieldDescriptorProto, _google_protobuf_FieldDescriptorProto__Output>
      FieldMask: MessageTypeDefinition<_google_protobuf_FieldMask, _google_protobuf_FieldMask__Output>
      FieldOptions: MessageTypeDefinition<_google_protobuf_FieldOptions, _google_protobuf_FieldOptions__Output>
      FileDescriptorProto: MessageTypeDefinition<_google_protobuf_FileDescriptorProto, _google_protobuf_FileDescriptorProto__Output>
      FileDescriptorSet: MessageTypeDefinition<_google_protobuf_FileDescriptorSet, _google_protobuf_FileDescriptorSet__Output>
      FileOptions: MessageTypeDefinition<_google_protobuf_FileOptions, _google_protobuf_FileOptions__Output>
      GeneratedCodeInfo: MessageTypeDefinition<_google_protobuf_GeneratedCodeInfo, _google_protobuf_GeneratedCodeInfo__Output>
      MessageOptions: MessageTypeDefinition<_google_protobuf_MessageOptions, _google_protobuf_MessageOptions__Output>
      MethodDescriptorProto: MessageTypeDefinition<_google_protobuf_MethodDescriptorProto, _google_protobuf_MethodDescriptorProto__Output>
      MethodOptions: MessageTypeDefinition<_google_protobuf_MethodOptions, _google_protobuf_MethodOptions__Output>
      OneofDescriptorProto: MessageTypeDefinition<_google_protobuf_OneofDescriptorProto, _google_protobuf_OneofDescriptorProto__Output>
      OneofOptions: MessageTypeDefinition<_google_protobuf_OneofOptions, _google_protobuf_OneofOptions__Output>
      ServiceDescriptorProto: MessageTypeDefinition<_google_protobuf_ServiceDescriptorProto, _google_protobuf_ServiceDescriptorProto__Output>
      ServiceOptions: MessageTypeDefinition<_google_protobuf_ServiceOptions, _google_protobuf_ServiceOptions__Output>
      SourceCodeInfo: MessageTypeDefinition<_google_protobuf_SourceCodeInfo, _google_protobuf_SourceCodeInfo__Output>
      SymbolVisibility: EnumTypeDefinition
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
      UninterpretedOption: MessageTypeDefinition<_google_protobuf_UninterpretedOption, _google_protobuf_UninterpretedOption__Output>
    }
  }
}

