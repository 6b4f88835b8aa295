import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { ContentDelete as _containerd_events_ContentDelete, ContentDelete__Output as _containerd_events_ContentDelete__Output } from './containerd/events/ContentDelete';
import type { AbortRequest as _containerd_services_content_v1_AbortRequest, AbortRequest__Output as _containerd_services_content_v1_AbortRequest__Output } from './containerd/services/content/v1/AbortRequest';
import type { ContentClient as _containerd_services_content_v1_ContentClient, ContentDefinition as _containerd_services_content_v1_ContentDefinition } from './containerd/services/content/v1/Content';
import type { DeleteContentRequest as _containerd_services_content_v1_DeleteContentRequest, DeleteContentRequest__Output as _containerd_services_content_v1_DeleteContentRequest__Output } from './containerd/services/content/v1/DeleteContentRequest';
import type { Info as _containerd_services_content_v1_Info, Info__Output as _containerd_services_content_v1_Info__Output } from './containerd/services/content/v1/Info';
import type { InfoRequest as _containerd_services_content_v1_InfoRequest, InfoRequest__Output as _containerd_services_content_v1_InfoRequest__Output } from './containerd/services/content/v1/InfoRequest';
import type { InfoResponse as _containerd_services_content_v1_InfoResponse, InfoResponse__Output as _containerd_services_content_v1_InfoResponse__Output } from './containerd/services/content/v1/InfoResponse';
import type { ListContentRequest as _containerd_services_content_v1_ListContentRequest, ListContentRequest__Output as _containerd_services_content_v1_ListContentRequest__Output } from './containerd/services/content/v1/ListContentRequest';
import type { ListContentResponse as _containerd_services_content_v1_ListContentResponse, ListContentResponse__Output as _containerd_services_content_v1_ListContentResponse__Output } from './containerd/services/content/v1/ListContentResponse';
import type { ListStatusesRequest as _containerd_services_content_v1_ListStatusesRequest, ListStatusesRequest__Output as _containerd_services_content_v1_ListStatusesRequest__Output } from './containerd/services/content/v1/ListStatusesRequest';
import type { ListStatusesResponse as _containerd_services_content_v1_ListStatusesResponse, ListStatusesResponse__Output as _containerd_services_content_v1_ListStatusesResponse__Output } from './containerd/services/content/v1/ListStatusesResponse';
import type { ReadContentRequest as _containerd_services_content_v1_ReadContentRequest, ReadContentRequest__Output as _containerd_services_content_v1_ReadContentRequest__Output } from './containerd/services/content/v1/ReadContentRequest';
import type { ReadContentResponse as _containerd_services_content_v1_ReadContentResponse, ReadContentResponse__Output as _containerd_services_content_v1_ReadContentResponse__Output } from './containerd/services/content/v1/ReadContentResponse';
import type { Status as _containerd_services_content_v1_Status, Status__Output as _containerd_services_content_v1_Status__Output } from './containerd/services/content/v1/Status';
import type { StatusRequest as _containerd_services_content_v1_StatusRequest, StatusRequest__Output as _containerd_services_content_v1_StatusRequest__Output } from './containerd/services/content/v1/StatusRequest';
import type { StatusResponse as _containerd_services_content_v1_StatusResponse, StatusResponse__Output as _containerd_services_content_v1_StatusResponse__Output } from './containerd/services/content/v1/StatusResponse';
import type { UpdateRequest as _containerd_services_content_v1_UpdateRequest, UpdateRequest__Output as _containerd_services_content_v1_UpdateRequest__Output } from './containerd/services/content/v1/UpdateRequest';
import type { UpdateResponse as _containerd_services_content_v1_UpdateResponse, UpdateResponse__Output as _containerd_services_content_v1_UpdateResponse__Output } from './containerd/services/content/v1/UpdateResponse';
import type { WriteContentRequest as _containerd_services_content_v1_WriteContentRequest, WriteContentRequest__Output as _containerd_services_content_v1_WriteContentRequest__Output } from './containerd/services/content/v1/WriteContentRequest';
import type { WriteContentResponse as _containerd_services_content_v1_WriteContentResponse, WriteContentResponse__Output as _containerd_services_content_v1_WriteContentResponse__Output } from './containerd/services/content/v1/WriteContentResponse';
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
    events: {
      ContentDelete: MessageTypeDefinition<_containerd_events_ContentDelete, _containerd_events_ContentDelete__Output>
    }
    plugin: {
    }
    services: {
      content: {
        v1: {
          AbortRequest: MessageTypeDefinition<_containerd_services_content_v1_AbortRequest, _containerd_services_content_v1_AbortRequest__Output>
          Content: SubtypeConstructor<typeof grpc.Client, _containerd_services_content_v1_ContentClient> & { service: _containerd_services_content_v1_ContentDefinition }
          DeleteContentRequest: MessageTypeDefinition<_containerd_services_content_v1_DeleteContentRequest, _containerd_services_content_v1_DeleteContentRequest__Output>
          Info: MessageTypeDefinition<_containerd_services_content_v1_Info, _containerd_services_content_v1_Info__Output>
          InfoRequest: MessageTypeDefinition<_containerd_services_content_v1_InfoRequest, _containerd_services_content_v1_InfoRequest__Output>
          InfoResponse: MessageTypeDefinition<_containerd_services_content_v1_InfoResponse, _containerd_services_content_v1_InfoResponse__Output>
          ListContentRequest: MessageTypeDefinition<_containerd_services_content_v1_ListContentRequest, _containerd_services_content_v1_ListContentRequest__Output>
          ListContentResponse: MessageTypeDefinition<_containerd_services_content_v1_ListContentResponse, _containerd_services_content_v1_ListContentResponse__Output>
          ListStatusesRequest: MessageTypeDefinition<_containerd_services_content_v1_ListStatusesRequest, _containerd_services_content_v1_ListStatusesRequest__Output>
          ListStatusesResponse: MessageTypeDefinition<_containerd_services_content_v1_ListStatusesResponse, _containerd_services_content_v1_ListStatusesResponse__Output>
          ReadContentRequest: MessageTypeDefinition<_containerd_services_content_v1_ReadContentRequest, _containerd_services_content_v1_ReadContentRequest__Output>
          ReadContentResponse: MessageTypeDefinition<_containerd_services_content_v1_ReadContentResponse, _containerd_services_content_v1_ReadContentResponse__Output>
          Status: MessageTypeDefinition<_containerd_services_content_v1_Status, _containerd_services_content_v1_Status__Output>
          StatusRequest: MessageTypeDefinition<_containerd_services_content_v1_StatusRequest, _containerd_services_content_v1_StatusRequest__Output>
          StatusResponse: MessageTypeDefinition<_containerd_services_content_v1_StatusResponse, _containerd_services_content_v1_StatusResponse__Output>
          UpdateRequest: MessageTypeDefinition<_containerd_services_content_v1_UpdateRequest, _containerd_services_content_v1_UpdateRequest__Output>
          UpdateResponse: MessageTypeDefinition<_containerd_services_content_v1_UpdateResponse, _containerd_services_content_v1_UpdateResponse__Output>
          WriteAction: EnumTypeDefinition
          WriteContentRequest: MessageTypeDefinition<_containerd_services_content_v1_WriteContentRequest, _containerd_services_content_v1_WriteContentRequest__Output>
          WriteContentResponse: MessageTypeDefinition<_containerd_services_content_v1_WriteContentResponse, _containerd_services_content_v1_WriteContentResponse__Output>
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
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
      UninterpretedOption: MessageTypeDefinition<_google_protobuf_UninterpretedOption, _google_protobuf_UninterpretedOption__Output>
    }
  }
}

