// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface ResumeTaskRequest {
  'container_id'?: (string);
}

export interface ResumeTaskRequest__Output {
  'container_id': (string);
}
