// berth's container record (persisted by store/containers) and its parts — types only.
import type { ContainerConfig, HostConfig } from './config';
import type { Endpoint, EndpointConfig, NetworkingConfig } from './network';
import type { IOPaths } from './io';

export type ContainerStatus = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface ContainerState {
  Status: ContainerStatus;
  Running: boolean;
  Paused: boolean;
  Restarting: boolean;
  OOMKilled: boolean;
  Dead: boolean;
  Pid: number;
  ExitCode: number;
  Error: string;
  StartedAt: string;
  FinishedAt: string;
  /** Healthcheck state (API 1.24) while the container has a probe. */
  Health?: HealthState;
}

export interface MountPoint {
  Type: 'bind' | 'volume' | 'tmpfs';
  Name?: string;
  Source: string;
  Destination: string;
  Driver?: string;
  Mode: string;
  RW: boolean;
  Propagation: string;
  Anonymous?: boolean;
  /** a plugin volume's mount id while it is mounted for this container (VolumeDriver.Mount/Unmount) */
  ID?: string;
}

export interface ContainerRecord {
  Id: string;
  Name: string; // with the leading slash
  Created: string;
  Path: string;
  Args: string[];
  Config: ContainerConfig;
  HostConfig: HostConfig;
  NetworkingConfig: NetworkingConfig;
  Image: string; // image id
  ImageName: string; // as given at create
  State: ContainerState;
  RestartCount: number;
  LogPath: string;
  ResolvConfPath: string;
  HostnamePath: string;
  HostsPath: string;
  Driver: string;
  HasBeenManuallyStopped: boolean;
  MountPoints?: MountPoint[];
  /** The networks the container is configured on, by network name (NetworkSettings.Networks). */
  Networks?: Record<string, EndpointConfig>;
  /** Live endpoints while it runs, by network name. */
  Endpoints?: Record<string, Endpoint>;
  IO?: IOPaths;
  /** Link environment added to the process spec at the last start. */
  LinkEnv?: string[];
}

export interface HealthResult {
  Start: string;
  End: string;
  ExitCode: number;
  Output: string;
}

export interface HealthState {
  Status: 'starting' | 'healthy' | 'unhealthy';
  FailingStreak: number;
  Log: HealthResult[];
}
