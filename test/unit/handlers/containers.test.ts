// handlers/containers over a real socket with a fake backend: create's validation and answer, the list query,
// lifecycle answers, update per version, logs' checks and byte stream, attach's logs and its event.
import { containerRoutes, ContainersBackend, ExecIdsBackend } from '../../../src/handlers/containers';
import { notModified } from '../../../src/errors';
import { FrameDecoder } from '../../../src/http/stream';
import type { ContainerListQuery } from '../../../src/translate/filters';
import type { CreateRequest } from '../../../src/translate/request/create';
import type { HostConfig } from '../../../src/types/config';
import type { LogQuery } from '../../../src/types/logs';
import { CONTAINER_ID, containerRecord, fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const calls: unknown[][] = [];
const rec = containerRecord();
const containers = fake<ContainersBackend>({
  find: () => rec,
  create: async (req: CreateRequest, name) => {
    calls.push(['create', req.config.Cmd, req.hostConfig.Memory, name]);
    return { id: CONTAINER_ID, warnings: [] };
  },
  listFiltered: async (q: ContainerListQuery) => {
    calls.push(['list', q.all, q.limit, q.since, Object.fromEntries(q.filters)]);
    return [rec];
  },
  start: async () => {
    throw notModified();
  },
  update: async (_ref, u: HostConfig) => {
    calls.push(['update', u]);
    return [];
  },
  streamLogs: async (_id, q: LogQuery, sink) => {
    calls.push(['logs', q]);
    sink.write(Buffer.from('LOGBYTES'));
  },
  logEntries: async (_id, streams, emit) => {
    if (streams.stdout) emit({ stream: 'stdout', log: 'hello\n', time: '2024-01-01T00:00:00Z' });
    if (streams.stderr) emit({ stream: 'stderr', log: 'oops\n', time: '2024-01-01T00:00:00Z' });
  },
  attached: (r) => void calls.push(['attached', r.Id]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(containerRoutes(containers, fake<ExecIdsBackend>({ idsFor: () => [] })))));
afterAll(() => s.close());
const post = (path: string, body: unknown) => s.request('POST', path, JSON.stringify(body), { 'Content-Type': 'application/json' });

test('create: 1.18 resources move to HostConfig, the name is passed, 201 with Id and Warnings', async () => {
  const r = await post('/v1.18/containers/create?name=web', { Image: 'busybox', Cmd: 'true', Memory: 8 << 20 });
  expect([r.status, r.text]).toEqual([201, `{"Id":"${CONTAINER_ID}","Warnings":[]}\n`]);
  expect(calls.pop()).toEqual(['create', ['true'], 8 << 20, 'web']);
});

test('list: the query is parsed and checked before the backend is asked', async () => {
  const f = encodeURIComponent('{"status":["exited"],"label":["a=b"]}');
  const r = await s.request('GET', `/containers/json?all=1&limit=3&since=abc&filters=${f}`);
  expect(r.status).toBe(200);
  expect(JSON.parse(r.text)).toMatchObject([{ Id: CONTAINER_ID, Names: ['/web'] }]);
  expect(calls.pop()).toEqual(['list', true, 3, 'abc', { status: ['exited'], label: ['a=b'] }]);
  expect(await s.request('GET', `/v1.20/containers/json?filters=${encodeURIComponent('{"health":["healthy"]}')}`)).toMatchObject({ status: 400, text: "Invalid filter 'health'\n" });
  expect(await s.request('GET', `/containers/json?filters=${encodeURIComponent('{"status":["sleepy"]}')}`)).toMatchObject({ status: 400, text: '{"message":"Invalid filter \'status=sleepy\'"}\n' });
});

test('start of a running container is a bare 304; a start body is refused from 1.24', async () => {
  expect(await s.request('POST', '/containers/web/start')).toMatchObject({ status: 304, text: '' });
  expect(await post('/containers/web/start', { Binds: ['/a:/b'] })).toMatchObject({ status: 400, text: '{"message":"starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24"}\n' });
});

test('update: RestartPolicy taken from 1.24 only', async () => {
  const body = { Memory: 1 << 20, RestartPolicy: { Name: 'always', MaximumRetryCount: 0 } };
  expect(await post('/containers/web/update', body)).toMatchObject({ status: 200, text: '{"Warnings":null}\n' });
  expect(calls.pop()).toEqual(['update', body]);
  await post('/v1.23/containers/web/update', body);
  expect(calls.pop()).toEqual(['update', { Memory: 1 << 20 }]);
});

test('logs: a stream is required; the query reaches the backend; its bytes are the body', async () => {
  expect(await s.request('GET', '/containers/web/logs')).toMatchObject({ status: 400, text: '{"message":"Bad parameters: you must choose at least one stream"}\n' });
  // a tail that is no integer means all of it, as the reference reads it (asked: tail=bogus, ' 2', '2x' all give every line)
  expect(await s.request('GET', '/containers/web/logs?stdout=1&tail=x')).toMatchObject({ status: 200, text: 'LOGBYTES' });
  expect(calls.pop()).toEqual(['logs', expect.objectContaining({ read: expect.objectContaining({ tail: undefined }) })]);
  const r = await s.request('GET', '/containers/web/logs?stdout=1&tail=5&since=12.5&timestamps=1');
  // As the reference: no Content-Type, and the connection closes at the end.
  expect([r.status, r.headers['content-type'], r.headers.connection, r.text]).toEqual([200, undefined, 'close', 'LOGBYTES']);
  expect(calls.pop()).toEqual(['logs', { read: { stdout: true, stderr: false, sinceNs: 12_500_000_000n, tail: 5 }, format: { framed: true, timestamps: true, details: false }, follow: false }]);
});

test('attach with logs=1 and no stream: the log framed per stream, then the end; an attach event', async () => {
  const r = await s.request('POST', '/containers/web/attach?logs=1&stdout=1&stderr=1');
  expect([r.status, r.headers['content-type']]).toEqual([200, 'application/vnd.docker.raw-stream']);
  const frames = new FrameDecoder().push(Buffer.from(r.text, 'latin1'));
  expect(frames.map((f) => [f.stream, f.payload.toString()])).toEqual([[1, 'hello\n'], [2, 'oops\n']]);
  expect(calls.pop()).toEqual(['attached', CONTAINER_ID]);
});
