// A filesystem change of a container (GET /containers/(id)/changes) — types only.

export interface Change {
  Path: string;
  /** 0 modified, 1 added, 2 deleted. */
  Kind: 0 | 1 | 2;
}
