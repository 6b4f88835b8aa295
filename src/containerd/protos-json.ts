// Builds src/containerd/gen/protos.json, which loader.ts reads at run time: the service protos parsed as
// @grpc/proto-loader parses them (keepCase, its include-path and common-proto rules), the `Any` payload protos added
// to the same root, saved with protobufjs's toJSON. Used by scripts/gen-proto-types.sh (npm run gen:proto) and by
// test/unit/containerd-protos.test.ts, never at run time.
import type * as protobuf from 'protobufjs';
import { ANY_FILES, protoDir, SERVICE_FILES } from './loader';

interface ProtoLoaderUtil {
  loadProtosWithOptionsSync(files: string[], options: { keepCase: boolean; includeDirs: string[] }): protobuf.Root;
}

export function protosJson(): string {
  require('@grpc/proto-loader'); // registers the google/protobuf common protos, as loading it does for loadSync
  const util = require('@grpc/proto-loader/build/src/util') as ProtoLoaderUtil;
  const root = util.loadProtosWithOptionsSync(SERVICE_FILES, { keepCase: true, includeDirs: [protoDir()] });
  root.loadSync(ANY_FILES, { keepCase: true });
  root.resolveAll();
  return JSON.stringify(root.toJSON()) + '\n';
}
