// Original file: github.com/containerd/containerd/api/services/tasks/v1/tasks.proto


export interface ExecProcessResponse {
}

export interface ExecProcessResponse__Output {
}
