/**
 * The parts of a call the header rules read (MessageContext provides them), and of its backend target: what
 * a backend request head is made from (header-rules.ts) and kept with (kept-request-head.ts).
 */
export interface HeaderSource {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly reqHeaders: readonly string[];
  readonly clientIp: string;
  readonly secure: boolean;
  readonly resourcePath: string;
  readonly extraBackendHeaders: readonly string[];
  readonly removedBackendHeaders: readonly string[];
}

export interface HeaderTarget {
  readonly basePath: string;
  readonly hostHeader: string;
  readonly absolutePrefix: string;
  readonly proxyAuthorizationLine: string;
}
