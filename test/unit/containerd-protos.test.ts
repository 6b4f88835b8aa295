// src/containerd/gen/protos.json (what loader.ts loads at run time) must be what parsing the vendored protos gives,
// and the service definitions built from it must be the ones @grpc/proto-loader builds from the text protos.
import * as fs from 'node:fs';
import * as protoLoader from '@grpc/proto-loader';
import { LOADER_OPTIONS, loadProtos, protoDir, protosJsonPath, SERVICE_FILES } from '../../src/containerd/loader';
import { protosJson } from '../../src/containerd/protos-json';

describe('containerd protos', () => {
  test('gen/protos.json is the vendored protos as parsed (npm run gen:proto regenerates it)', () => {
    expect(fs.readFileSync(protosJsonPath(), 'utf8')).toBe(protosJson());
  });

  test("the service definitions are proto-loader's: paths, streams, names and encodings", () => {
    const loaded = loadProtos();
    const def = protoLoader.loadSync(SERVICE_FILES, { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
    const svc = loaded.grpc.containerd.services as unknown as Record<string, Record<string, Record<string, { service: Record<string, Record<string, unknown>> }>>>;
    let methods = 0;
    for (const [name, want] of Object.entries(def)) {
      if ('format' in want) continue; // a message or enum type: only services are built
      const parts = name.split('.');
      expect(parts.slice(0, 2)).toEqual(['containerd', 'services']);
      const got = svc[parts[2]][parts[3]][parts[4]].service;
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const [m, w] of Object.entries(want as protoLoader.ServiceDefinition)) {
        const g = got[m] as unknown as protoLoader.MethodDefinition<object, object>;
        expect([g.path, g.requestStream, g.responseStream, g.originalName]).toEqual([w.path, w.requestStream, w.responseStream, w.originalName]);
        methods++;
      }
    }
    expect(methods).toBeGreaterThan(60);
    // A request with nested messages, a map, an Any, enums and 64-bit integers encodes and decodes as proto-loader's.
    const want = (def['containerd.services.tasks.v1.Tasks'] as protoLoader.ServiceDefinition).Create;
    const got = svc.tasks.v1.Tasks.service.Create as unknown as protoLoader.MethodDefinition<object, object>;
    const req = {
      container_id: 'c1',
      rootfs: [{ type: 'overlay', source: 'overlay', options: ['lowerdir=/a', 'upperdir=/b'] }],
      stdin: '/fifo/in',
      terminal: true,
      checkpoint: { mediaType: 'x', digest: 'sha256:00', size: '9007199254740993', annotations: { a: 'b' } },
      options: { type_url: 'containerd.runc.v1.Options', value: Buffer.from([8, 1]) },
    };
    const bytes = got.requestSerialize(req);
    expect(bytes).toEqual(want.requestSerialize(req));
    expect(got.requestDeserialize(bytes)).toEqual(want.requestDeserialize(bytes));
    const state = { process: { id: 'p', pid: 7, status: 'RUNNING', exit_status: 0, exited_at: { seconds: '12', nanos: 3 } } };
    const sb = (def['containerd.services.tasks.v1.Tasks'] as protoLoader.ServiceDefinition).Get.responseSerialize(state);
    expect((svc.tasks.v1.Tasks.service.Get as unknown as protoLoader.MethodDefinition<object, object>).responseDeserialize(sb)).toEqual(
      (def['containerd.services.tasks.v1.Tasks'] as protoLoader.ServiceDefinition).Get.responseDeserialize(sb),
    );
    expect(() => got.requestSerialize([] as unknown as object)).toThrow('expected object with CreateTaskRequest structure, got array instead');
  });

  test('the Any payloads decode from the same root', () => {
    const { root, grpc } = loadProtos();
    expect(root.lookupType('containerd.events.TaskExit')).toBeDefined();
    expect(root.lookupType('io.containerd.cgroups.v2.Metrics')).toBeDefined();
    expect(root.lookupType('containerd.runc.v1.Options')).toBeDefined();
    expect(typeof grpc.containerd.services.version.v1.Version).toBe('function');
  });
});
