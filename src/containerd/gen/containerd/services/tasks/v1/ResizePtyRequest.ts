// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface ResizePtyRequest {
  'container_id'?: (string);
  'exec_id'?: (string);
  'width'?: (number);
  'height'?: (number);
}

export interface ResizePtyRequest__Output {
  'container_id': (string);
  'exec_id': (string);
  'width': (number);
  'height': (number);
}
