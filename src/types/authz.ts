// Authorization plugins (docs/authz.md): the AuthZ protocol's request as berth builds it, and what the http layer
// asks of the plugins.

/** The fields of an AuthZPlugin.AuthZReq / AuthZRes call (the engine's authorization.Request); bodies as bytes. */
export interface AuthzRequest {
  /** The TLS client certificate's subject CN, when the client sent one. */
  User?: string;
  /** "TLS" with a User. */
  UserAuthNMethod?: string;
  RequestMethod: string;
  /** The URI as the client sent it (version prefix and query included). */
  RequestUri: string;
  RequestBody?: Buffer;
  RequestHeaders: Record<string, string>;
  /** The client's certificate (DER), when it sent one. */
  RequestPeerCertificates?: Buffer[];
  ResponseBody?: Buffer;
  ResponseHeaders?: Record<string, string>;
  /** 0 (omitted) for a failed handler, a stream or a hijack. */
  ResponseStatusCode?: number;
}

/** The plugins, as the http layer asks them. Refusals are thrown as typed errors with the engine's messages. */
export interface Authorizer {
  /** Whether any plugin is configured (otherwise nothing is asked). */
  enabled(): boolean;
  /** Before the handler: throws Forbidden (`authorization denied by plugin …`) or System (`plugin … failed …`). */
  authorizeRequest(r: AuthzRequest): Promise<void>;
  /** After the handler, with the response's fields: the same errors. */
  authorizeResponse(r: AuthzRequest): Promise<void>;
}
