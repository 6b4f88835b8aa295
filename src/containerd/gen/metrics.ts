import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Metric as _containerd_types_Metric, Metric__Output as _containerd_types_Metric__Output } from './containerd/types/Metric';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from './google/protobuf/Any';
import type { DescriptorProto as _google_protobuf_DescriptorProto, DescriptorProto__Output as _google_protobuf_DescriptorProto__Output } from './google/protobuf/DescriptorProto';
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
import type { BlkIOEntry as _io_containerd_cgroups_v1_BlkIOEntry, BlkIOEntry__Output as _io_containerd_cgroups_v1_BlkIOEntry__Output } from './io/containerd/cgroups/v1/BlkIOEntry';
import type { BlkIOStat as _io_containerd_cgroups_v1_BlkIOStat, BlkIOStat__Output as _io_containerd_cgroups_v1_BlkIOStat__Output } from './io/containerd/cgroups/v1/BlkIOStat';
import type { CPUStat as _io_containerd_cgroups_v1_CPUStat, CPUStat__Output as _io_containerd_cgroups_v1_CPUStat__Output } from './io/containerd/cgroups/v1/CPUStat';
import type { CPUUsage as _io_containerd_cgroups_v1_CPUUsage, CPUUsage__Output as _io_containerd_cgroups_v1_CPUUsage__Output } from './io/containerd/cgroups/v1/CPUUsage';
import type { CgroupStats as _io_containerd_cgroups_v1_CgroupStats, CgroupStats__Output as _io_containerd_cgroups_v1_CgroupStats__Output } from './io/containerd/cgroups/v1/CgroupStats';
import type { HugetlbStat as _io_containerd_cgroups_v1_HugetlbStat, HugetlbStat__Output as _io_containerd_cgroups_v1_HugetlbStat__Output } from './io/containerd/cgroups/v1/HugetlbStat';
import type { MemoryEntry as _io_containerd_cgroups_v1_MemoryEntry, MemoryEntry__Output as _io_containerd_cgroups_v1_MemoryEntry__Output } from './io/containerd/cgroups/v1/MemoryEntry';
import type { MemoryOomControl as _io_containerd_cgroups_v1_MemoryOomControl, MemoryOomControl__Output as _io_containerd_cgroups_v1_MemoryOomControl__Output } from './io/containerd/cgroups/v1/MemoryOomControl';
import type { MemoryStat as _io_containerd_cgroups_v1_MemoryStat, MemoryStat__Output as _io_containerd_cgroups_v1_MemoryStat__Output } from './io/containerd/cgroups/v1/MemoryStat';
import type { Metrics as _io_containerd_cgroups_v1_Metrics, Metrics__Output as _io_containerd_cgroups_v1_Metrics__Output } from './io/containerd/cgroups/v1/Metrics';
import type { NetworkStat as _io_containerd_cgroups_v1_NetworkStat, NetworkStat__Output as _io_containerd_cgroups_v1_NetworkStat__Output } from './io/containerd/cgroups/v1/NetworkStat';
import type { PidsStat as _io_containerd_cgroups_v1_PidsStat, PidsStat__Output as _io_containerd_cgroups_v1_PidsStat__Output } from './io/containerd/cgroups/v1/PidsStat';
import type { RdmaEntry as _io_containerd_cgroups_v1_RdmaEntry, RdmaEntry__Output as _io_containerd_cgroups_v1_RdmaEntry__Output } from './io/containerd/cgroups/v1/RdmaEntry';
import type { RdmaStat as _io_containerd_cgroups_v1_RdmaStat, RdmaStat__Output as _io_containerd_cgroups_v1_RdmaStat__Output } from './io/containerd/cgroups/v1/RdmaStat';
import type { Throttle as _io_containerd_cgroups_v1_Throttle, Throttle__Output as _io_containerd_cgroups_v1_Throttle__Output } from './io/containerd/cgroups/v1/Throttle';
import type { CPUStat as _io_containerd_cgroups_v2_CPUStat, CPUStat__Output as _io_containerd_cgroups_v2_CPUStat__Output } from './io/containerd/cgroups/v2/CPUStat';
import type { HugeTlbStat as _io_containerd_cgroups_v2_HugeTlbStat, HugeTlbStat__Output as _io_containerd_cgroups_v2_HugeTlbStat__Output } from './io/containerd/cgroups/v2/HugeTlbStat';
import type { IOEntry as _io_containerd_cgroups_v2_IOEntry, IOEntry__Output as _io_containerd_cgroups_v2_IOEntry__Output } from './io/containerd/cgroups/v2/IOEntry';
import type { IOStat as _io_containerd_cgroups_v2_IOStat, IOStat__Output as _io_containerd_cgroups_v2_IOStat__Output } from './io/containerd/cgroups/v2/IOStat';
import type { MemoryEvents as _io_containerd_cgroups_v2_MemoryEvents, MemoryEvents__Output as _io_containerd_cgroups_v2_MemoryEvents__Output } from './io/containerd/cgroups/v2/MemoryEvents';
import type { MemoryStat as _io_containerd_cgroups_v2_MemoryStat, MemoryStat__Output as _io_containerd_cgroups_v2_MemoryStat__Output } from './io/containerd/cgroups/v2/MemoryStat';
import type { Metrics as _io_containerd_cgroups_v2_Metrics, Metrics__Output as _io_containerd_cgroups_v2_Metrics__Output } from './io/containerd/cgroups/v2/Metrics';
import type { PidsStat as _io_containerd_cgroups_v2_PidsStat, PidsStat__Output as _io_containerd_cgroups_v2_PidsStat__Output } from './io/containerd/cgroups/v2/PidsStat';
import type { RdmaEntry as _io_containerd_cgroups_v2_RdmaEntry, RdmaEntry__Output as _io_containerd_cgroups_v2_RdmaEntry__Output } from './io/containerd/cgroups/v2/RdmaEntry';
import type { RdmaStat as _io_containerd_cgroups_v2_RdmaStat, RdmaStat__Output as _io_containerd_cgroups_v2_RdmaStat__Output } from './io/containerd/cgroups/v2/RdmaStat';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  containerd: {
    types: {
      Metric: MessageTypeDefinition<_containerd_types_Metric, _containerd_types_Metric__Output>
    }
  }
  gogoproto: {
  }
  google: {
    protobuf: {
      Any: MessageTypeDefinition<_google_protobuf_Any, _google_protobuf_Any__Output>
      DescriptorProto: MessageTypeDefinition<_google_protobuf_DescriptorProto, _google_protobuf_DescriptorProto__Output>
      Edition: EnumTypeDefinition
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
  io: {
    containerd: {
      cgroups: {
        v1: {
          BlkIOEntry: MessageTypeDefinition<_io_containerd_cgroups_v1_BlkIOEntry, _io_containerd_cgroups_v1_BlkIOEntry__Output>
          BlkIOStat: MessageTypeDefinition<_io_containerd_cgroups_v1_BlkIOStat, _io_containerd_cgroups_v1_BlkIOStat__Output>
          CPUStat: MessageTypeDefinition<_io_containerd_cgroups_v1_CPUStat, _io_containerd_cgroups_v1_CPUStat__Output>
          CPUUsage: MessageTypeDefinition<_io_containerd_cgroups_v1_CPUUsage, _io_containerd_cgroups_v1_CPUUsage__Output>
          CgroupStats: MessageTypeDefinition<_io_containerd_cgroups_v1_CgroupStats, _io_containerd_cgroups_v1_CgroupStats__Output>
          HugetlbStat: MessageTypeDefinition<_io_containerd_cgroups_v1_HugetlbStat, _io_containerd_cgroups_v1_HugetlbStat__Output>
          MemoryEntry: MessageTypeDefinition<_io_containerd_cgroups_v1_MemoryEntry, _io_containerd_cgroups_v1_MemoryEntry__Output>
          MemoryOomControl: MessageTypeDefinition<_io_containerd_cgroups_v1_MemoryOomControl, _io_containerd_cgroups_v1_MemoryOomControl__Output>
          MemoryStat: MessageTypeDefinition<_io_containerd_cgroups_v1_MemoryStat, _io_containerd_cgroups_v1_MemoryStat__Output>
          Metrics: MessageTypeDefinition<_io_containerd_cgroups_v1_Metrics, _io_containerd_cgroups_v1_Metrics__Output>
          NetworkStat: MessageTypeDefinition<_io_containerd_cgroups_v1_NetworkStat, _io_containerd_cgroups_v1_NetworkStat__Output>
          PidsStat: MessageTypeDefinition<_io_containerd_cgroups_v1_PidsStat, _io_containerd_cgroups_v1_PidsStat__Output>
          RdmaEntry: MessageTypeDefinition<_io_containerd_cgroups_v1_RdmaEntry, _io_containerd_cgroups_v1_RdmaEntry__Output>
          RdmaStat: MessageTypeDefinition<_io_containerd_cgroups_v1_RdmaStat, _io_containerd_cgroups_v1_RdmaStat__Output>
          Throttle: MessageTypeDefinition<_io_containerd_cgroups_v1_Throttle, _io_containerd_cgroups_v1_Throttle__Output>
        }
        v2: {
          CPUStat: MessageTypeDefinition<_io_containerd_cgroups_v2_CPUStat, _io_containerd_cgroups_v2_CPUStat__Output>
          HugeTlbStat: MessageTypeDefinition<_io_containerd_cgroups_v2_HugeTlbStat, _io_containerd_cgroups_v2_HugeTlbStat__Output>
          IOEntry: MessageTypeDefinition<_io_containerd_cgroups_v2_IOEntry, _io_containerd_cgroups_v2_IOEntry__Output>
          IOStat: MessageTypeDefinition<_io_containerd_cgroups_v2_IOStat, _io_containerd_cgroups_v2_IOStat__Output>
          MemoryEvents: MessageTypeDefinition<_io_containerd_cgroups_v2_MemoryEvents, _io_containerd_cgroups_v2_MemoryEvents__Output>
          MemoryStat: MessageTypeDefinition<_io_containerd_cgroups_v2_MemoryStat, _io_containerd_cgroups_v2_MemoryStat__Output>
          Metrics: MessageTypeDefinition<_io_containerd_cgroups_v2_Metrics, _io_containerd_cgroups_v2_Metrics__Output>
          PidsStat: MessageTypeDefinition<_io_containerd_cgroups_v2_PidsStat, _io_containerd_cgroups_v2_PidsStat__Output>
          RdmaEntry: MessageTypeDefinition<_io_containerd_cgroups_v2_RdmaEntry, _io_containerd_cgroups_v2_RdmaEntry__Output>
          RdmaStat: MessageTypeDefinition<_io_containerd_cgroups_v2_RdmaStat, _io_containerd_cgroups_v2_RdmaStat__Output>
        }
      }
    }
  }
}

