// Original file: null

import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from '../../google/protobuf/FeatureSet';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from '../../google/protobuf/UninterpretedOption';

// Original file: null

export const _google_protobuf_FileOptions_OptimizeMode = {
  SPEED: 'SPEED',
  CODE_SIZE: 'CODE_SIZE',
  LITE_RUNTIME: 'LITE_RUNTIME',
} as const;

export type _google_protobuf_FileOptions_OptimizeMode =
  | 'SPEED'
  | 1
  | 'CODE_SIZE'
  | 2
  | 'LITE_RUNTIME'
  | 3

export type _google_protobuf_FileOptions_OptimizeMode__Output = typeof _google_protobuf_FileOptions_OptimizeMode[keyof typeof _google_protobuf_FileOptions_OptimizeMode]

export interface FileOptions {
  'javaPackage'?: (string);
  'javaOuterClassname'?: (string);
  'optimizeFor'?: (_google_protobuf_FileOptions_OptimizeMode);
  'javaMultipleFiles'?: (boolean);
  'goPackage'?: (string);
  'ccGenericServices'?: (boolean);
  'javaGenericServices'?: (boolean);
  'pyGenericServices'?: (boolean);
  'javaGenerateEqualsAndHash'?: (boolean);
  'deprecated'?: (boolean);
  'javaStringCheckUtf8'?: (boolean);
  'ccEnableArenas'?: (boolean);
  'objcClassPrefix'?: (string);
  'csharpNamespace'?: (string);
  'swiftPrefix'?: (string);
  'phpClassPrefix'?: (string);
  'phpNamespace'?: (string);
  'phpMetadataNamespace'?: (string);
  'rubyPackage'?: (string);
  'features'?: (_google_protobuf_FeatureSet | null);
  'uninterpretedOption'?: (_google_protobuf_UninterpretedOption)[];
  '.gogoproto.goproto_getters_all'?: (boolean);
  '.gogoproto.goproto_enum_prefix_all'?: (boolean);
  '.gogoproto.goproto_stringer_all'?: (boolean);
  '.gogoproto.verbose_equal_all'?: (boolean);
  '.gogoproto.face_all'?: (boolean);
  '.gogoproto.gostring_all'?: (boolean);
  '.gogoproto.populate_all'?: (boolean);
  '.gogoproto.stringer_all'?: (boolean);
  '.gogoproto.onlyone_all'?: (boolean);
  '.gogoproto.equal_all'?: (boolean);
  '.gogoproto.description_all'?: (boolean);
  '.gogoproto.testgen_all'?: (boolean);
  '.gogoproto.benchgen_all'?: (boolean);
  '.gogoproto.marshaler_all'?: (boolean);
  '.gogoproto.unmarshaler_all'?: (boolean);
  '.gogoproto.stable_marshaler_all'?: (boolean);
  '.gogoproto.sizer_all'?: (boolean);
  '.gogoproto.goproto_enum_stringer_all'?: (boolean);
  '.gogoproto.enum_stringer_all'?: (boolean);
  '.gogoproto.unsafe_marshaler_all'?: (boolean);
  '.gogoproto.unsafe_unmarshaler_all'?: (boolean);
  '.gogoproto.goproto_extensions_map_all'?: (boolean);
  '.gogoproto.goproto_unrecognized_all'?: (boolean);
  '.gogoproto.gogoproto_import'?: (boolean);
  '.gogoproto.protosizer_all'?: (boolean);
  '.gogoproto.compare_all'?: (boolean);
  '.gogoproto.typedecl_all'?: (boolean);
  '.gogoproto.enumdecl_all'?: (boolean);
  '.gogoproto.goproto_registration'?: (boolean);
  '.gogoproto.messagename_all'?: (boolean);
  '.gogoproto.goproto_sizecache_all'?: (boolean);
  '.gogoproto.goproto_unkeyed_all'?: (boolean);
}

export interface FileOptions__Output {
  'javaPackage': (string);
  'javaOuterClassname': (string);
  'optimizeFor': (_google_protobuf_FileOptions_OptimizeMode__Output);
  'javaMultipleFiles': (boolean);
  'goPackage': (string);
  'ccGenericServices': (boolean);
  'javaGenericServices': (boolean);
  'pyGenericServices': (boolean);
  'javaGenerateEqualsAndHash': (boolean);
  'deprecated': (boolean);
  'javaStringCheckUtf8': (boolean);
  'ccEnableArenas': (boolean);
  'objcClassPrefix': (string);
  'csharpNamespace': (string);
  'swiftPrefix': (string);
  'phpClassPrefix': (string);
  'phpNamespace': (string);
  'phpMetadataNamespace': (string);
  'rubyPackage': (string);
  'features': (_google_protobuf_FeatureSet__Output | null);
  'uninterpretedOption': (_google_protobuf_UninterpretedOption__Output)[];
  '.gogoproto.goproto_getters_all': (boolean);
  '.gogoproto.goproto_enum_prefix_all': (boolean);
  '.gogoproto.goproto_stringer_all': (boolean);
  '.gogoproto.verbose_equal_all': (boolean);
  '.gogoproto.face_all': (boolean);
  '.gogoproto.gostring_all': (boolean);
  '.gogoproto.populate_all': (boolean);
  '.gogoproto.stringer_all': (boolean);
  '.gogoproto.onlyone_all': (boolean);
  '.gogoproto.equal_all': (boolean);
  '.gogoproto.description_all': (boolean);
  '.gogoproto.testgen_all': (boolean);
  '.gogoproto.benchgen_all': (boolean);
  '.gogoproto.marshaler_all': (boolean);
  '.gogoproto.unmarshaler_all': (boolean);
  '.gogoproto.stable_marshaler_all': (boolean);
  '.gogoproto.sizer_all': (boolean);
  '.gogoproto.goproto_enum_stringer_all': (boolean);
  '.gogoproto.enum_stringer_all': (boolean);
  '.gogoproto.unsafe_marshaler_all': (boolean);
  '.gogoproto.unsafe_unmarshaler_all': (boolean);
  '.gogoproto.goproto_extensions_map_all': (boolean);
  '.gogoproto.goproto_unrecognized_all': (boolean);
  '.gogoproto.gogoproto_import': (boolean);
  '.gogoproto.protosizer_all': (boolean);
  '.gogoproto.compare_all': (boolean);
  '.gogoproto.typedecl_all': (boolean);
  '.gogoproto.enumdecl_all': (boolean);
  '.gogoproto.goproto_registration': (boolean);
  '.gogoproto.messagename_all': (boolean);
  '.gogoproto.goproto_sizecache_all': (boolean);
  '.gogoproto.goproto_unkeyed_all': (boolean);
}
