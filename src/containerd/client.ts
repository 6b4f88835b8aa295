// Typed facades over containerd's gRPC services. Every namespaced call carries `containerd-namespace`; a call
// made inside a lease carries `containerd-lease`. Unary methods return promises and throw BerthErrors.
import * as grpc from '@grpc/grpc-js';
import { loadProtos, LoadedProtos } from './loader';
import { AnyCodec } from './any';
import { fromGrpcError } from './errors';
import type { ContainersClient } from './gen/containerd/services/containers/v1/Containers';
import type { ContentClient } from './gen/containerd/services/content/v1/Content';
import type { DiffClient } from './gen/containerd/services/diff/v1/Diff';
import type { EventsClient } from './gen/containerd/services/events/v1/Events';
import type { ImagesClient } from './gen/containerd/services/images/v1/Images';
import type { IntrospectionClient } from './gen/containerd/services/introspection/v1/Introspection';
import type { LeasesClient } from './gen/containerd/services/leases/v1/Leases';
import type { NamespacesClient } from './gen/containerd/services/namespaces/v1/Namespaces';
import type { SnapshotsClient } from './gen/containerd/services/snapshots/v1/Snapshots';
import type { TasksClient } from './gen/containerd/services/tasks/v1/Tasks';
import type { VersionClient } from './gen/containerd/services/version/v1/Version';

export interface CallOpts {
  /** containerd lease id to attach created resources to. */
  lease?: string;
  /** deadline in ms from now; none by default (Tasks.Wait must have none). */
  timeoutMs?: number;
  /** override the client's namespace. */
  namespace?: string;
  signal?: AbortSignal;
}

type UnaryOf<F> = F extends (argument: infer Req, callback: grpc.requestCallback<infer Res>) => grpc.ClientUnaryCall
  ? (req: Req, opts?: CallOpts) => Promise<Res>
  : never;

/** The capitalised unary methods of a generated client, promisified. */
export type Unary<C> = {
  [K in keyof C as K extends string ? (K extends Capitalize<K> ? K : never) : never]: UnaryOf<C[K]>;
};

export interface ContainerdOptions {
  address: string;
  namespace: string;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': 64 << 20,
  'grpc.max_send_message_length': 64 << 20,
  'grpc.keepalive_permit_without_calls': 0,
  // containerd back after a long absence is found within 5 s (grpc-js's default waits grow to 120 s between
  // connection attempts); an attempt on a unix socket costs next to nothing
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 5000,
};

export class Containerd {
  readonly namespace: string;
  readonly address: string;
  readonly any: AnyCodec;
  private readonly protos: LoadedProtos;

  readonly raw: {
    containers: ContainersClient;
    content: ContentClient;
    diff: DiffClient;
    events: EventsClient;
    images: ImagesClient;
    introspection: IntrospectionClient;
    leases: LeasesClient;
    namespaces: NamespacesClient;
    snapshots: SnapshotsClient;
    tasks: TasksClient;
    version: VersionClient;
  };

  readonly containers: Unary<ContainersClient>;
  readonly content: Unary<ContentClient>;
  readonly diff: Unary<DiffClient>;
  readonly images: Unary<ImagesClient>;
  readonly introspection: Unary<IntrospectionClient>;
  readonly leases: Unary<LeasesClient>;
  readonly namespaces: Unary<NamespacesClient>;
  readonly snapshots: Unary<SnapshotsClient>;
  readonly tasks: Unary<TasksClient>;
  readonly version: Unary<VersionClient>;
  /** Changes of the namespace's image records as this client knows them (images.ts: generation, noteChange). */
  readonly imageChanges = { generation: 0, watched: false };

  constructor(opts: ContainerdOptions, protos: LoadedProtos = loadProtos()) {
    this.namespace = opts.namespace;
    this.address = opts.address;
    this.protos = protos;
    this.any = new AnyCodec(protos.root);
    const target = opts.address.startsWith('unix:') ? opts.address : `unix://${opts.address}`;
    const creds = grpc.credentials.createInsecure();
    const svc = protos.grpc.containerd.services;
    // One channel shared by all service clients.
    const first = new svc.version.v1.Version(target, creds, CHANNEL_OPTIONS);
    const channelOverride = first.getChannel();
    const mk = <T>(Ctor: new (addr: string, c: grpc.ChannelCredentials, o: grpc.ChannelOptions) => T): T =>
      new Ctor(target, creds, { ...CHANNEL_OPTIONS, channelOverride });
    this.raw = {
      version: first,
      containers: mk(svc.containers.v1.Containers),
      content: mk(svc.content.v1.Content),
      diff: mk(svc.diff.v1.Diff),
      events: mk(svc.events.v1.Events),
      images: mk(svc.images.v1.Images),
      introspection: mk(svc.introspection.v1.Introspection),
      leases: mk(svc.leases.v1.Leases),
      namespaces: mk(svc.namespaces.v1.Namespaces),
      snapshots: mk(svc.snapshots.v1.Snapshots),
      tasks: mk(svc.tasks.v1.Tasks),
    };
    this.containers = this.facade(this.raw.containers);
    this.content = this.facade(this.raw.content);
    this.diff = this.facade(this.raw.diff);
    this.images = this.facade(this.raw.images);
    this.introspection = this.facade(this.raw.introspection);
    this.leases = this.facade(this.raw.leases);
    this.namespaces = this.facade(this.raw.namespaces);
    this.snapshots = this.facade(this.raw.snapshots);
    this.tasks = this.facade(this.raw.tasks);
    this.version = this.facade(this.raw.version);
  }

  /** A containerd client for another namespace sharing the loaded protos (tests, benchmarks). */
  withNamespace(namespace: string): Containerd {
    return new Containerd({ address: this.address, namespace }, this.protos);
  }

  metadata(opts: CallOpts = {}): grpc.Metadata {
    const md = new grpc.Metadata();
    md.set('containerd-namespace', opts.namespace ?? this.namespace);
    if (opts.lease) md.set('containerd-lease', opts.lease);
    return md;
  }

  callOptions(opts: CallOpts = {}): grpc.CallOptions {
    return opts.timeoutMs ? { deadline: Date.now() + opts.timeoutMs } : {};
  }

  private facade<C extends grpc.Client>(client: C): Unary<C> {
    return new Proxy({} as Unary<C>, {
      get: (_t, name: string) => (req: unknown, opts: CallOpts = {}) =>
        new Promise((resolve, reject) => {
          const fn = (client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>)[name];
          if (typeof fn !== 'function') return reject(new Error(`containerd: no method ${name}`));
          // grpc-js makes an Error at every unary call, for the caller's stack in the message of a call that fails
          // (its stack trace captured each time: about a tenth of the call's own CPU here). berth's errors are made
          // from the status (fromGrpcError), never from that stack: the call is made with no stack captured.
          const limit = Error.stackTraceLimit;
          Error.stackTraceLimit = 0;
          let call: grpc.ClientUnaryCall;
          try {
            call = fn.call(client, req, this.metadata(opts), this.callOptions(opts), (err: grpc.ServiceError | null, out: unknown) =>
              err ? reject(fromGrpcError(err)) : resolve(out),
            ) as grpc.ClientUnaryCall;
          } finally {
            Error.stackTraceLimit = limit;
          }
          opts.signal?.addEventListener('abort', () => call.cancel(), { once: true });
        }),
    });
  }

  /** containerd's version and revision; throws when it does not answer within `timeoutMs`. */
  async serverVersion(timeoutMs: number): Promise<{ version: string; revision: string }> {
    const v = await this.version.Version({}, { timeoutMs });
    return { version: v.version, revision: v.revision };
  }

  /** Waits until containerd answers Version (used at start-up and after a reconnect). */
  async waitReady(timeoutMs: number): Promise<{ version: string; revision: string }> {
    const deadline = Date.now() + timeoutMs;
    let lastErr: unknown;
    while (Date.now() < deadline) {
      try {
        return await this.version.Version({}, { timeoutMs: Math.max(200, Math.min(2000, deadline - Date.now())) });
      } catch (err) {
        lastErr = err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw lastErr instanceof Error ? lastErr : new Error('containerd did not answer');
  }

  /**
   * Calls `cb` each time the shared channel becomes READY after being anything else (containerd back after a
   * restart, once any call reconnected), until close(). Long-lived streams that wait out a back-off use it to come
   * back at once rather than at their next retry.
   */
  onReady(cb: () => void): void {
    const channel = this.raw.version.getChannel();
    const watch = (state: grpc.connectivityState) => {
      try {
        channel.watchConnectivityState(state, Infinity, (err) => {
          if (err) return;
          const now = channel.getConnectivityState(false);
          if (now === grpc.connectivityState.READY && state !== grpc.connectivityState.READY) cb();
          if (now !== grpc.connectivityState.SHUTDOWN) watch(now);
        });
      } catch {
        /* closed */
      }
    };
    watch(channel.getConnectivityState(false));
  }

  close(): void {
    for (const c of Object.values(this.raw)) (c as grpc.Client).close();
  }
}
