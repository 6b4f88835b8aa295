// A build request as the handler hands it to the builder (POST /build's query, body and X-Registry-Config) — types only.
import type { Readable } from 'node:stream';
import type { Credentials } from './registry';

/** The resource limits of a build's RUN containers (memory, memswap, cpu*, shmsize queries). */
export interface BuildResources {
  Memory?: number;
  MemorySwap?: number;
  CpuShares?: number;
  CpusetCpus?: string;
  CpusetMems?: string;
  CpuPeriod?: number;
  CpuQuota?: number;
  ShmSize?: number;
}

export interface BuildRequest {
  body: Readable;
  remote?: string;
  dockerfile: string;
  tags: string[];
  quiet: boolean;
  nocache: boolean;
  pull: boolean;
  rm: boolean;
  forcerm: boolean;
  buildArgs: Record<string, string | null>;
  labels: Record<string, string>;
  resources: BuildResources;
  registryConfig: Record<string, Credentials>;
}
