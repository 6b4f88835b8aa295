// A timeline of berthd's work, for profiling (not loaded in production): preloaded into a berthd process with
// `node -r dist/bench/trace.js dist/src/main.js …` and BERTH_TRACE=<file>, it appends one line per event to the file,
// each with the ms since the process started: an HTTP request's arrival and its answer (`http> POST /…`,
// `http< POST /… 3.21`), a containerd call's start and its duration (`grpc /containerd.services…/Create 12.0 2.85`),
// an event from containerd's stream (`grpc-event`), a command of the command helper (`cmd ip netns attach … 4.10`),
// a record's save and its fsync (`save 120.5 3.2`, `fsync 121.1 0.92`), and the writes of an /events stream (`events-write`). bench:cli sets it up when
// BENCH_TRACE=<file> is given; bench/trace-summary.ts turns the file into per-phase medians.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

const file = process.env.BERTH_TRACE;
// (berthd's forked helpers inherit its -r: only berthd itself writes the trace)
delete process.env.BERTH_TRACE;
if (file) {
  const fd = fs.openSync(file, 'w'); // (one berthd's trace per file)
  const t0 = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - t0) / 1e6;
  const f2 = (x: number) => x.toFixed(2);
  const log = (s: string) => fs.writeSync(fd, `${f2(now())} ${s}\n`);
  // the wall clock at t0 (ms since the epoch): bench:cli and bench:lifecycle place the lines in their runs by it
  // and the monotonic clock's (µs, as V8's CPU profiles' timestamps), to place a profile's samples in the runs too
  log(`epoch ${(performance.timeOrigin + performance.now() - now()).toFixed(3)} ${(Number(t0) / 1e3).toFixed(0)}`);

  // containerd calls, through berth's client facade (grpc-js's generated methods keep its original functions)
  const req = require as NodeRequire;
  type Fn = (...a: unknown[]) => unknown;
  const client = req(path.resolve(__dirname, '../src/containerd/client.js')) as { Containerd: { prototype: Record<string, Fn> } };
  const facade = client.Containerd.prototype.facade;
  client.Containerd.prototype.facade = function (this: unknown, arg: unknown) {
    const c = arg as { constructor: { service?: Record<string, { path: string }> } };
    const f = facade.call(this, c) as Record<string, Fn>;
    return new Proxy({}, {
      get: (_t, name: string) => (...a: unknown[]) => {
        const s = now();
        const what = (c.constructor.service?.[name]?.path ?? name).replace('/containerd.services.', '');
        const p = f[name](...a) as Promise<unknown>;
        p.then(
          () => log(`grpc ${what} ${f2(s)} ${f2(now() - s)}`),
          () => log(`grpc ${what} ${f2(s)} ${f2(now() - s)} ERR`),
        );
        return p;
      },
    });
  };

  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, ev: string, ...a: unknown[]) {
    if (ev === 'upgrade') log(`upgrade> ${(a[0] as http.IncomingMessage).method} ${(a[0] as http.IncomingMessage).url}`);
    if (ev === 'request') {
      const [rq, rs] = a as [http.IncomingMessage, http.ServerResponse];
      const s = now();
      const what = `${rq.method} ${rq.url}`;
      log(`http> ${what}`);
      rs.on('finish', () => log(`http< ${what} ${f2(now() - s)}`));
      if (rq.url?.includes('/events')) {
        const w = rs.write;
        rs.write = function (this: http.ServerResponse, ...wa: unknown[]) {
          log(`events-write ${String(wa[0]).slice(0, 120).replace(/\s+/g, ' ')}`);
          return (w as Fn).apply(this, wa) as boolean;
        } as typeof rs.write;
        // (the events handler writes its chunks on the socket itself)
        const sock = rq.socket;
        const sw = sock.write;
        sock.write = function (this: typeof sock, ...wa: unknown[]) {
          const m = /"status":"([a-z_ :]+)"/.exec(String(wa[0]));
          if (m) log(`events-write ${m[1]}`);
          return (sw as Fn).apply(this, wa) as boolean;
        } as typeof sock.write;
      }
    }
    return (emit as Fn).call(this, ev, ...a) as boolean;
  } as typeof http.Server.prototype.emit;

  // the command helper (berth's own module, as main.js loads it)
  const sp = req(path.resolve(__dirname, '../src/spawner.js')) as typeof import('../src/spawner');
  const run = sp.Spawner.prototype.run;
  sp.Spawner.prototype.run = async function (this: unknown, f: string, args: string[], o?: unknown) {
    const s = now();
    try {
      return await run.call(this, f, args, o as never);
    } finally {
      log(`cmd ${f} ${args.join(' ').slice(0, 80)} ${f2(s)} ${f2(now() - s)}`);
    }
  } as typeof run;

  // an async method's calls, timed: `label start duration`
  const timed = (proto: Record<string, Fn>, name: string, label: string) => {
    const orig = proto[name];
    proto[name] = async function (this: unknown, ...a: unknown[]) {
      const s = now();
      try {
        return await orig.apply(this, a);
      } finally {
        log(`${label} ${f2(s)} ${f2(now() - s)}`);
      }
    };
  };
  // a container record's save (its writes are serial per container: the time includes a wait for the one before)
  const store = req(path.resolve(__dirname, '../src/store/containers.js')) as { ContainerStore: { prototype: Record<string, Fn> } };
  timed(store.ContainerStore.prototype, 'save', 'save');
  // an exit's wait for the run's output to be complete (the capture thread's EOF on the FIFOs), before die
  const io = req(path.resolve(__dirname, '../src/runtime/io.js')) as { ContainerIO: { prototype: Record<string, Fn> } };
  timed(io.ContainerIO.prototype, 'outputDone', 'outputDone');

  // fsync of a file descriptor (the records' atomic writes: store/atomic.ts)
  const nodeFs = req('node:fs') as typeof fs; // (the module itself: an import's namespace object has getters only)
  const fsync = nodeFs.fsync;
  (nodeFs as { fsync: typeof fsync }).fsync = function (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) {
    const s = now();
    return fsync(fd, (err) => {
      log(`fsync ${f2(s)} ${f2(now() - s)}`);
      cb(err);
    });
  } as typeof fsync;
}
