import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { CheckpointTaskRequest as _containerd_services_tasks_v1_CheckpointTaskRequest, CheckpointTaskRequest__Output as _containerd_services_tasks_v1_CheckpointTaskRequest__Output } from './containerd/services/tasks/v1/CheckpointTaskRequest';
import type { CheckpointTaskResponse as _containerd_services_tasks_v1_CheckpointTaskResponse, CheckpointTaskResponse__Output as _containerd_services_tasks_v1_CheckpointTaskResponse__Output } from './containerd/services/tasks/v1/CheckpointTaskResponse';
import type { CloseIORequest as _containerd_services_tasks_v1_CloseIORequest, CloseIORequest__Output as _containerd_services_tasks_v1_CloseIORequest__Output } from './containerd/services/tasks/v1/CloseIORequest';
import type { CreateTaskRequest as _containerd_services_tasks_v1_CreateTaskRequest, CreateTaskRequest__Output as _containerd_services_tasks_v1_CreateTaskRequest__Output } from './containerd/services/tasks/v1/CreateTaskRequest';
import type { CreateTaskResponse as _containerd_services_tasks_v1_CreateTaskResponse, CreateTaskResponse__Output as _containerd_services_tasks_v1_CreateTaskResponse__Output } from './containerd/services/tasks/v1/CreateTaskResponse';
import type { DeleteProcessRequest as _containerd_services_tasks_v1_DeleteProcessRequest, DeleteProcessRequest__Output as _containerd_services_tasks_v1_DeleteProcessRequest__Output } from './containerd/services/tasks/v1/DeleteProcessRequest';
import type { DeleteResponse as _containerd_services_tasks_v1_DeleteResponse, DeleteResponse__Output as _containerd_services_tasks_v1_DeleteResponse__Output } from './containerd/services/tasks/v1/DeleteResponse';
import type { DeleteTaskRequest as _containerd_services_tasks_v1_DeleteTaskRequest, DeleteTaskRequest__Output as _containerd_services_tasks_v1_DeleteTaskRequest__Output } from './containerd/services/tasks/v1/DeleteTaskRequest';
import type { ExecProcessRequest as _containerd_services_tasks_v1_ExecProcessRequest, ExecProcessRequest__Output as _containerd_services_tasks_v1_ExecProcessRequest__Output } from './containerd/services/tasks/v1/ExecProcessRequest';
import type { ExecProcessResponse as _containerd_services_tasks_v1_ExecProcessResponse, ExecProcessResponse__Output as _containerd_services_tasks_v1_ExecProcessResponse__Output } from './containerd/services/tasks/v1/ExecProcessResponse';
import type { GetRequest as _containerd_services_tasks_v1_GetRequest, GetRequest__Output as _containerd_services_tasks_v1_GetRequest__Output } from './containerd/services/tasks/v1/GetRequest';
import type { GetResponse as _containerd_services_tasks_v1_GetResponse, GetResponse__Output as _containerd_services_tasks_v1_GetResponse__Output } from './containerd/services/tasks/v1/GetResponse';
import type { KillRequest as _containerd_services_tasks_v1_KillRequest, KillRequest__Output as _containerd_services_tasks_v1_KillRequest__Output } from './containerd/services/tasks/v1/KillRequest';
import type { ListPidsRequest as _containerd_services_tasks_v1_ListPidsRequest, ListPidsRequest__Output as _containerd_services_tasks_v1_ListPidsRequest__Output } from './containerd/services/tasks/v1/ListPidsRequest';
import type { ListPidsResponse as _containerd_services_tasks_v1_ListPidsResponse, ListPidsResponse__Output as _containerd_services_tasks_v1_ListPidsResponse__Output } from './containerd/services/tasks/v1/ListPidsResponse';
import type { ListTasksRequest as _containerd_services_tasks_v1_ListTasksRequest, ListTasksRequest__Output as _containerd_services_tasks_v1_ListTasksRequest__Output } from './containerd/services/tasks/v1/ListTasksRequest';
import type { ListTasksResponse as _containerd_services_tasks_v1_ListTasksResponse, ListTasksResponse__Output as _containerd_services_tasks_v1_ListTasksResponse__Output } from './containerd/services/tasks/v1/ListTasksResponse';
import type { MetricsRequest as _containerd_services_tasks_v1_MetricsRequest, MetricsRequest__Output as _containerd_services_tasks_v1_MetricsRequest__Output } from './containerd/services/tasks/v1/MetricsRequest';
import type { MetricsResponse as _containerd_services_tasks_v1_MetricsResponse, MetricsResponse__Output as _containerd_services_tasks_v1_MetricsResponse__Output } from './containerd/services/tasks/v1/MetricsResponse';
import type { PauseTaskRequest as _containerd_services_tasks_v1_PauseTaskRequest, PauseTaskRequest__Output as _containerd_services_tasks_v1_PauseTaskRequest__Output } from './containerd/services/tasks/v1/PauseTaskRequest';
import type { ResizePtyRequest as _containerd_services_tasks_v1_ResizePtyRequest, ResizePtyRequest__Output as _containerd_services_tasks_v1_ResizePtyRequest__Output } from './containerd/services/tasks/v1/ResizePtyRequest';
import type { ResumeTaskRequest as _containerd_services_tasks_v1_ResumeTaskRequest, ResumeTaskRequest__Output as _containerd_services_tasks_v1_ResumeTaskRequest__Output } from './containerd/services/tasks/v1/ResumeTaskRequest';
import type { StartRequest as _containerd_services_tasks_v1_StartRequest, StartRequest__Output as _containerd_services_tasks_v1_StartRequest__Output } from './containerd/services/tasks/v1/StartRequest';
import type { StartResponse as _containerd_services_tasks_v1_StartResponse, StartResponse__Output as _containerd_services_tasks_v1_StartResponse__Output } from './containerd/services/tasks/v1/StartResponse';
import type { TasksClient as _containerd_services_tasks_v1_TasksClient, TasksDefinition as _containerd_services_tasks_v1_TasksDefinition } from './containerd/services/tasks/v1/Tasks';
import type { UpdateTaskRequest as _containerd_services_tasks_v1_UpdateTaskRequest, UpdateTaskRequest__Output as _containerd_services_tasks_v1_UpdateTaskRequest__Output } from './containerd/services/tasks/v1/UpdateTaskRequest';
import type { WaitRequest as _containerd_services_tasks_v1_WaitRequest, WaitRequest__Output as _containerd_services_tasks_v1_WaitRequest__Output } from './containerd/services/tasks/v1/WaitRequest';
import type { WaitResponse as _containerd_services_tasks_v1_WaitResponse, WaitResponse__Output as _containerd_services_tasks_v1_WaitResponse__Output } from './containerd/services/tasks/v1/WaitResponse';
import type { Descriptor as _containerd_types_Descriptor, Descriptor__Output as _containerd_types_Descriptor__Output } from './containerd/types/Descriptor';
import type { Metric as _containerd_types_Metric, Metric__Output as _containerd_types_Metric__Output } from './containerd/types/Metric';
import type { Mount as _containerd_types_Mount, Mount__Output as _containerd_types_Mount__Output } from './containerd/types/Mount';
import type { Process as _containerd_v1_types_Process, Process__Output as _containerd_v1_types_Process__Output } from './containerd/v1/types/Process';
import type { ProcessInfo as _containerd_v1_types_ProcessInfo, ProcessInfo__Output as _containerd_v1_types_ProcessInfo__Output } from './containerd/v1/types/ProcessInfo';
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
      tasks: {
        v1: {
          CheckpointTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_CheckpointTaskRequest, _containerd_services_tasks_v1_CheckpointTaskRequest__Output>
          CheckpointTaskResponse: MessageTypeDefinition<_containerd_services_tasks_v1_CheckpointTaskResponse, _containerd_services_tasks_v1_CheckpointTaskResponse__Output>
          CloseIORequest: MessageTypeDefinition<_containerd_services_tasks_v1_CloseIORequest, _containerd_services_tasks_v1_CloseIORequest__Output>
          CreateTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_CreateTaskRequest, _containerd_services_tasks_v1_CreateTaskRequest__Output>
          CreateTaskResponse: MessageTypeDefinition<_containerd_services_tasks_v1_CreateTaskResponse, _containerd_services_tasks_v1_CreateTaskResponse__Output>
          DeleteProcessRequest: MessageTypeDefinition<_containerd_services_tasks_v1_DeleteProcessRequest, _containerd_services_tasks_v1_DeleteProcessRequest__Output>
          DeleteResponse: MessageTypeDefinition<_containerd_services_tasks_v1_DeleteResponse, _containerd_services_tasks_v1_DeleteResponse__Output>
          DeleteTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_DeleteTaskRequest, _containerd_services_tasks_v1_DeleteTaskRequest__Output>
          ExecProcessRequest: MessageTypeDefinition<_containerd_services_tasks_v1_ExecProcessRequest, _containerd_services_tasks_v1_ExecProcessRequest__Output>
          ExecProcessResponse: MessageTypeDefinition<_containerd_services_tasks_v1_ExecProcessResponse, _containerd_services_tasks_v1_ExecProcessResponse__Output>
          GetRequest: MessageTypeDefinition<_containerd_services_tasks_v1_GetRequest, _containerd_services_tasks_v1_GetRequest__Output>
          GetResponse: MessageTypeDefinition<_containerd_services_tasks_v1_GetResponse, _containerd_services_tasks_v1_GetResponse__Output>
          KillRequest: MessageTypeDefinition<_containerd_services_tasks_v1_KillRequest, _containerd_services_tasks_v1_KillRequest__Output>
          ListPidsRequest: MessageTypeDefinition<_containerd_services_tasks_v1_ListPidsRequest, _containerd_services_tasks_v1_ListPidsRequest__Output>
          ListPidsResponse: MessageTypeDefinition<_containerd_services_tasks_v1_ListPidsResponse, _containerd_services_tasks_v1_ListPidsResponse__Output>
          ListTasksRequest: MessageTypeDefinition<_containerd_services_tasks_v1_ListTasksRequest, _containerd_services_tasks_v1_ListTasksRequest__Output>
          ListTasksResponse: MessageTypeDefinition<_containerd_services_tasks_v1_ListTasksResponse, _containerd_services_tasks_v1_ListTasksResponse__Output>
          MetricsRequest: MessageTypeDefinition<_containerd_services_tasks_v1_MetricsRequest, _containerd_services_tasks_v1_MetricsRequest__Output>
          MetricsResponse: MessageTypeDefinition<_containerd_services_tasks_v1_MetricsResponse, _containerd_services_tasks_v1_MetricsResponse__Output>
          PauseTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_PauseTaskRequest, _containerd_services_tasks_v1_PauseTaskRequest__Output>
          ResizePtyRequest: MessageTypeDefinition<_containerd_services_tasks_v1_ResizePtyRequest, _containerd_services_tasks_v1_ResizePtyRequest__Output>
          ResumeTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_ResumeTaskRequest, _containerd_services_tasks_v1_ResumeTaskRequest__Output>
          StartRequest: MessageTypeDefinition<_containerd_services_tasks_v1_StartRequest, _containerd_services_tasks_v1_StartRequest__Output>
          StartResponse: MessageTypeDefinition<_containerd_services_tasks_v1_StartResponse, _containerd_services_tasks_v1_StartResponse__Output>
          Tasks: SubtypeConstructor<typeof grpc.Client, _containerd_services_tasks_v1_TasksClient> & { service: _containerd_services_tasks_v1_TasksDefinition }
          UpdateTaskRequest: MessageTypeDefinition<_containerd_services_tasks_v1_UpdateTaskRequest, _containerd_services_tasks_v1_UpdateTaskRequest__Output>
          WaitRequest: MessageTypeDefinition<_containerd_services_tasks_v1_WaitRequest, _containerd_services_tasks_v1_WaitRequest__Output>
          WaitResponse: MessageTypeDefinition<_containerd_services_tasks_v1_WaitResponse, _containerd_services_tasks_v1_WaitResponse__Output>
        }
      }
    }
    types: {
      Descriptor: MessageTypeDefinition<_containerd_types_Descriptor, _containerd_types_Descriptor__Output>
      Metric: MessageTypeDefinition<_containerd_types_Metric, _containerd_types_Metric__Output>
      Mount: MessageTypeDefinition<_containerd_types_Mount, _containerd_types_Mount__Output>
    }
    v1: {
      types: {
        Process: MessageTypeDefinition<_containerd_v1_types_Process, _containerd_v1_types_Process__Output>
        ProcessInfo: MessageTypeDefinition<_containerd_v1_types_ProcessInfo, _containerd_v1_types_ProcessInfo__Output>
        Status: EnumTypeDefinition
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

