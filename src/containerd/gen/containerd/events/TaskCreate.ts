// Original file: github.com/containerd/containerd/api/events/task.proto

import type { Mount as _containerd_types_Mount, Mount__Output as _containerd_types_Mount__Output } from '../../containerd/types/Mount';
import type { TaskIO as _containerd_events_TaskIO, TaskIO__Output as _containerd_events_TaskIO__Output } from '../../containerd/events/TaskIO';

export interface TaskCreate {
  'container_id'?: (string);
  'bundle'?: (string);
  'rootfs'?: (_containerd_types_Mount)[];
  'io'?: (_containerd_events_TaskIO | null);
  'checkpoint'?: (string);
  'pid'?: (number);
}

export interface TaskCreate__Output {
  'container_id': (string);
  'bundle': (string);
  'rootfs': (_containerd_types_Mount__Output)[];
  'io': (_containerd_events_TaskIO__Output | null);
  'checkpoint': (string);
  'pid': (number);
}
