// Original file: null

import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from '../../google/protobuf/FeatureSet';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from '../../google/protobuf/UninterpretedOption';

export interface MessageOptions {
  'messageSetWireFormat'?: (boolean);
  'noStandardDescriptorAccessor'?: (boolean);
  'deprecated'?: (boolean);
  'mapEntry'?: (boolean);
  'deprecatedLegacyJsonFieldConflicts'?: (boolean);
  'features'?: (_google_protobuf_FeatureSet | null);
  'uninterpretedOption'?: (_google_protobuf_UninterpretedOption)[];
  '.gogoproto.goproto_getters'?: (boolean);
  '.gogoproto.goproto_stringer'?: (boolean);
  '.gogoproto.verbose_equal'?: (boolean);
  '.gogoproto.face'?: (boolean);
  '.gogoproto.gostring'?: (boolean);
  '.gogoproto.populate'?: (boolean);
  '.gogoproto.onlyone'?: (boolean);
  '.gogoproto.equal'?: (boolean);
  '.gogoproto.description'?: (boolean);
  '.gogoproto.testgen'?: (boolean);
  '.gogoproto.benchgen'?: (boolean);
  '.gogoproto.marshaler'?: (boolean);
  '.gogoproto.unmarshaler'?: (boolean);
  '.gogoproto.stable_marshaler'?: (boolean);
  '.gogoproto.sizer'?: (boolean);
  '.gogoproto.unsafe_marshaler'?: (boolean);
  '.gogoproto.unsafe_unmarshaler'?: (boolean);
  '.gogoproto.goproto_extensions_map'?: (boolean);
  '.gogoproto.goproto_unrecognized'?: (boolean);
  '.gogoproto.protosizer'?: (boolean);
  '.gogoproto.compare'?: (boolean);
  '.gogoproto.typedecl'?: (boolean);
  '.gogoproto.messagename'?: (boolean);
  '.gogoproto.goproto_sizecache'?: (boolean);
  '.gogoproto.goproto_unkeyed'?: (boolean);
  '.gogoproto.stringer'?: (boolean);
}

export interface MessageOptions__Output {
  'messageSetWireFormat': (boolean);
  'noStandardDescriptorAccessor': (boolean);
  'deprecated': (boolean);
  'mapEntry': (boolean);
  'deprecatedLegacyJsonFieldConflicts': (boolean);
  'features': (_google_protobuf_FeatureSet__Output | null);
  'uninterpretedOption': (_google_protobuf_UninterpretedOption__Output)[];
  '.gogoproto.goproto_getters': (boolean);
  '.gogoproto.goproto_stringer': (boolean);
  '.gogoproto.verbose_equal': (boolean);
  '.gogoproto.face': (boolean);
  '.gogoproto.gostring': (boolean);
  '.gogoproto.populate': (boolean);
  '.gogoproto.onlyone': (boolean);
  '.gogoproto.equal': (boolean);
  '.gogoproto.description': (boolean);
  '.gogoproto.testgen': (boolean);
  '.gogoproto.benchgen': (boolean);
  '.gogoproto.marshaler': (boolean);
  '.gogoproto.unmarshaler': (boolean);
  '.gogoproto.stable_marshaler': (boolean);
  '.gogoproto.sizer': (boolean);
  '.gogoproto.unsafe_marshaler': (boolean);
  '.gogoproto.unsafe_unmarshaler': (boolean);
  '.gogoproto.goproto_extensions_map': (boolean);
  '.gogoproto.goproto_unrecognized': (boolean);
  '.gogoproto.protosizer': (boolean);
  '.gogoproto.compare': (boolean);
  '.gogoproto.typedecl': (boolean);
  '.gogoproto.messagename': (boolean);
  '.gogoproto.goproto_sizecache': (boolean);
  '.gogoproto.goproto_unkeyed': (boolean);
  '.gogoproto.stringer': (boolean);
}
