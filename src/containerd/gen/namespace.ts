import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { NamespaceCreate as _containerd_events_NamespaceCreate, NamespaceCreate__Output as _containerd_events_NamespaceCreate__Output } from './containerd/events/NamespaceCreate';
import type { NamespaceDelete as _containerd_events_NamespaceDelete, NamespaceDelete__Output as _containerd_events_NamespaceDelete__Output } from './containerd/events/NamespaceDelete';
import type { NamespaceUpdate as _containerd_events_NamespaceUpdate, NamespaceUpdate__Output as _containerd_events_NamespaceUpdate__Output } from './containerd/events/NamespaceUpdate';
import type { CreateNamespaceRequest as _containerd_services_namespaces_v1_CreateNamespaceRequest, CreateNamespaceRequest__Output as _containerd_services_namespaces_v1_CreateNamespaceRequest__Output } from './containerd/services/namespaces/v1/CreateNamespaceRequest';
import type { CreateNamespaceResponse as _containerd_services_namespaces_v1_CreateNamespaceResponse, CreateNamespaceResponse__Output as _containerd_services_namespaces_v1_CreateNamespaceResponse__Output } from './containerd/services/namespaces/v1/CreateNamespaceResponse';
import type { DeleteNamespaceRequest as _containerd_services_namespaces_v1_DeleteNamespaceRequest, DeleteNamespaceRequest__Output as _containerd_services_namespaces_v1_DeleteNamespaceRequest__Output } from './containerd/services/namespaces/v1/DeleteNamespaceRequest';
import type { GetNamespaceRequest as _containerd_services_namespaces_v1_GetNamespaceRequest, GetNamespaceRequest__Output as _containerd_services_namespaces_v1_GetNamespaceRequest__Output } from './containerd/services/namespaces/v1/GetNamespaceRequest';
import type { GetNamespaceResponse as _containerd_services_namespaces_v1_GetNamespaceResponse, GetNamespaceResponse__Output as _containerd_services_namespaces_v1_GetNamespaceResponse__Output } from './containerd/services/namespaces/v1/GetNamespaceResponse';
import type { ListNamespacesRequest as _containerd_services_namespaces_v1_ListNamespacesRequest, ListNamespacesRequest__Output as _containerd_services_namespaces_v1_ListNamespacesRequest__Output } from './containerd/services/namespaces/v1/ListNamespacesRequest';
import type { ListNamespacesResponse as _containerd_services_namespaces_v1_ListNamespacesResponse, ListNamespacesResponse__Output as _containerd_services_namespaces_v1_ListNamespacesResponse__Output } from './containerd/services/namespaces/v1/ListNamespacesResponse';
import type { Namespace as _containerd_services_namespaces_v1_Namespace, Namespace__Output as _containerd_services_namespaces_v1_Namespace__Output } from './containerd/services/namespaces/v1/Namespace';
import type { NamespacesClient as _containerd_services_namespaces_v1_NamespacesClient, NamespacesDefinition as _containerd_services_namespaces_v1_NamespacesDefinition } from './containerd/services/namespaces/v1/Namespaces';
import type { UpdateNamespaceRequest as _containerd_services_namespaces_v1_UpdateNamespaceRequest, UpdateNamespaceRequest__Output as _containerd_services_namespaces_v1_UpdateNamespaceRequest__Output } from './containerd/services/namespaces/v1/UpdateNamespaceRequest';
import type { UpdateNamespaceResponse as _containerd_services_namespaces_v1_UpdateNamespaceResponse, UpdateNamespaceResponse__Output as _containerd_services_namespaces_v1_UpdateNamespaceResponse__Output } from './containerd/services/namespaces/v1/UpdateNamespaceResponse';
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
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from './google/protobuf/UninterpretedOption';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  containerd: {
    events: {
      NamespaceCreate: MessageTypeDefinition<_containerd_events_NamespaceCreate, _containerd_events_NamespaceCreate__Output>
      NamespaceDelete: MessageTypeDefinition<_containerd_events_NamespaceDelete, _containerd_events_NamespaceDelete__Output>
      NamespaceUpdate: MessageTypeDefinition<_containerd_events_NamespaceUpdate, _containerd_events_NamespaceUpdate__Output>
    }
    plugin: {
    }
    services: {
      namespaces: {
        v1: {
          CreateNamespaceRequest: MessageTypeDefinition<_containerd_services_namespaces_v1_CreateNamespaceRequest, _containerd_services_namespaces_v1_CreateNamespaceRequest__Output>
          CreateNamespaceResponse: MessageTypeDefinition<_containerd_services_namespaces_v1_CreateNamespaceResponse, _containerd_services_namespaces_v1_CreateNamespaceResponse__Output>
          DeleteNamespaceRequest: MessageTypeDefinition<_containerd_services_namespaces_v1_DeleteNamespaceRequest, _containerd_services_namespaces_v1_DeleteNamespaceRequest__Output>
          GetNamespaceRequest: MessageTypeDefinition<_containerd_services_namespaces_v1_GetNamespaceRequest, _containerd_services_namespaces_v1_GetNamespaceRequest__Output>
          GetNamespaceResponse: MessageTypeDefinition<_containerd_services_namespaces_v1_GetNamespaceResponse, _containerd_services_namespaces_v1_GetNamespaceResponse__Output>
          ListNamespacesRequest: MessageTypeDefinition<_containerd_services_namespaces_v1_ListNamespacesRequest, _containerd_services_namespaces_v1_ListNamespacesRequest__Output>
          ListNamespacesResponse: MessageTypeDefinition<_containerd_services_namespaces_v1_ListNamespacesResponse, _containerd_services_namespaces_v1_ListNamespacesResponse__Output>
          Namespace: MessageTypeDefinition<_containerd_services_namespaces_v1_Namespace, _containerd_services_namespaces_v1_Namespace__Output>
          Namespaces: SubtypeConstructor<typeof grpc.Client, _containerd_services_namespaces_v1_NamespacesClient> & { service: _containerd_services_namespaces_v1_NamespacesDefinition }
          UpdateNamespaceRequest: MessageTypeDefinition<_containerd_services_namespaces_v1_UpdateNamespaceRequest, _containerd_services_namespaces_v1_UpdateNamespaceRequest__Output>
          UpdateNamespaceResponse: MessageTypeDefinition<_containerd_services_namespaces_v1_UpdateNamespaceResponse, _containerd_services_namespaces_v1_UpdateNamespaceResponse__Output>
        }
      }
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
      UninterpretedOption: MessageTypeDefinition<_google_protobuf_UninterpretedOption, _google_protobuf_UninterpretedOption__Output>
    }
  }
}

