// Original file: null

import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from '../../google/protobuf/FeatureSet';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from '../../google/protobuf/UninterpretedOption';

export interface EnumOptions {
  'allowAlias'?: (boolean);
  'deprecated'?: (boolean);
  'deprecatedLegacyJsonFieldConflicts'?: (boolean);
  'features'?: (_google_protobuf_FeatureSet | null);
  'uninterpretedOption'?: (_google_protobuf_UninterpretedOption)[];
  '.gogoproto.goproto_enum_prefix'?: (boolean);
  '.gogoproto.goproto_enum_stringer'?: (boolean);
  '.gogoproto.enum_stringer'?: (boolean);
  '.gogoproto.enum_customname'?: (string);
  '.gogoproto.enumdecl'?: (boolean);
}

export interface EnumOptions__Output {
  'allowAlias': (boolean);
  'deprecated': (boolean);
  'deprecatedLegacyJsonFieldConflicts': (boolean);
  'features': (_google_protobuf_FeatureSet__Output | null);
  'uninterpretedOption': (_google_protobuf_UninterpretedOption__Output)[];
  '.gogoproto.goproto_enum_prefix': (boolean);
  '.gogoproto.goproto_enum_stringer': (boolean);
  '.gogoproto.enum_stringer': (boolean);
  '.gogoproto.enum_customname': (string);
  '.gogoproto.enumdecl': (boolean);
}
