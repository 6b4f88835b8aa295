import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Container as _containerd_services_containers_v1_Container, Container__Output as _containerd_services_containers_v1_Container__Output } from './containerd/services/containers/v1/Container';
import type { ContainersClient as _containerd_services_containers_v1_ContainersClient, ContainersDefinition as _containerd_services_containers_v1_ContainersDefinition } from './containerd/services/containers/v1/Containers';
import type { CreateContainerRequest as _containerd_services_containers_v1_CreateContainerRequest, CreateContainerRequest__Output as _containerd_services_containers_v1_CreateContainerRequest__Output } from './containerd/services/containers/v1/CreateContainerRequest';
import type { CreateContainerResponse as _containerd_services_containers_v1_CreateContainerResponse, CreateContainerResponse__Output as _containerd_services_containers_v1_CreateContainerResponse__Output } from './containerd/services/containers/v1/CreateContainerResponse';
import type { DeleteContainerRequest as _containerd_services_containers_v1_DeleteContainerRequest, DeleteContainerRequest__Output as _containerd_services_containers_v1_DeleteContainerRequest__Output } from './containerd/services/containers/v1/DeleteContainerRequest';
import type { GetContainerRequest as _containerd_services_containers_v1_GetContainerRequest, GetContainerRequest__Output as _containerd_services_containers_v1_GetContainerRequest__Output } from './containerd/services/containers/v1/GetContainerRequest';
import type { GetContainerResponse as _containerd_services_containers_v1_GetContainerResponse, GetContainerResponse__Output as _containerd_services_containers_v1_GetContainerResponse__Output } from './containerd/services/containers/v1/GetContainerResponse';
import type { ListContainerMessage as _containerd_services_containers_v1_ListContainerMessage, ListContainerMessage__Output as _containerd_services_containers_v1_ListContainerMessage__Output } from './containerd/services/containers/v1/ListContainerMessage';
import type { ListContainersRequest as _containerd_services_containers_v1_ListContainersRequest, ListContainersRequest__Output as _containerd_services_containers_v1_ListContainersRequest__Output } from './containerd/services/containers/v1/ListContainersRequest';
import type { ListContainersResponse as _containerd_services_containers_v1_ListContainersResponse, ListContainersResponse__Output as _containerd_services_containers_v1_ListContainersResponse__Output } from './containerd/services/containers/v1/ListContainersResponse';
import type { UpdateContainerRequest as _containerd_services_containers_v1_UpdateContainerRequest, UpdateContainerRequest__Output as _containerd_services_containers_v1_UpdateContainerRequest__Output } from './containerd/services/containers/v1/UpdateContainerRequest';
import type { UpdateContainerResponse as _containerd_services_containers_v1_UpdateContainerResponse, UpdateContainerResponse__Output as _containerd_services_containers_v1_UpdateContainerResponse__Output } from './containerd/services/containers/v1/UpdateContainerResponse';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from './google/protobuf/Any';
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
      containers: {
        v1: {
          Container: MessageTypeDefinition<_containerd_services_containers_v1_Container, _containerd_services_containers_v1_Container__Output>
          Containers: SubtypeConstructor<typeof grpc.Client, _containerd_services_containers_v1_ContainersClient> & { service: _containerd_services_containers_v1_ContainersDefinition }
          CreateContainerRequest: MessageTypeDefinition<_containerd_services_containers_v1_CreateContainerRequest, _containerd_services_containers_v1_CreateContainerRequest__Output>
          CreateContainerResponse: MessageTypeDefinition<_containerd_services_containers_v1_CreateContainerResponse, _containerd_services_containers_v1_CreateContainerResponse__Output>
          DeleteContainerRequest: MessageTypeDefinition<_containerd_services_containers_v1_DeleteContainerRequest, _containerd_services_containers_v1_DeleteContainerRequest__Output>
          GetContainerRequest: MessageTypeDefinition<_containerd_services_containers_v1_GetContainerRequest, _containerd_services_containers_v1_GetContainerRequest__Output>
          GetContainerResponse: MessageTypeDefinition<_containerd_services_containers_v1_GetContainerResponse, _containerd_services_containers_v1_GetContainerResponse__Output>
          ListContainerMessage: MessageTypeDefinition<_containerd_services_containers_v1_ListContainerMessage, _containerd_services_containers_v1_ListContainerMessage__Output>
          ListContainersRequest: MessageTypeDefinition<_containerd_services_containers_v1_ListContainersRequest, _containerd_services_containers_v1_ListContainersRequest__Output>
          ListContainersResponse: MessageTypeDefinition<_containerd_services_containers_v1_ListContainersResponse, _containerd_services_containers_v1_ListContainersResponse__Output>
          UpdateContainerRequest: MessageTypeDefinition<_containerd_services_containers_v1_UpdateContainerRequest, _containerd_services_containers_v1_UpdateContainerRequest__Output>
          UpdateContainerResponse: MessageTypeDefinition<_containerd_services_containers_v1_UpdateContainerResponse, _containerd_services_containers_v1_UpdateContainerResponse__Output>
        }
      }
    }
  }
  gogoproto: {
  }
  google: {
    protobuf: {
      Any: MessageTypeDefinition<_google_protobuf_Any, _google_protobuf_Any__Output>
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

