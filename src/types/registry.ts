// Registry credentials (X-Registry-Auth, POST /auth) — types only.

export interface Credentials {
  username?: string;
  password?: string;
  /** an identity token from an earlier login (OAuth refresh token) */
  identitytoken?: string;
  /** the spec's token login: a bearer token used as is */
  registrytoken?: string;
}
