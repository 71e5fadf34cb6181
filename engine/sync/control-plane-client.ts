import tls from 'node:tls';
import { Agent, request } from 'undici';
import type { Logger } from 'pino';

export class ControlPlaneError extends Error {
  readonly code = 'SLUICE_CONTROL_PLANE';
  constructor(message: string, readonly status = 0) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

export interface ControlPlaneClientOptions {
  /** Base URLs of the control plane's servlet HTTPS port (the first, then the others on failure). */
  readonly urls: readonly string[];
  readonly username: string;
  readonly password: string | undefined;
  /** Trusted CA certificates (PEM) for the control plane's TLS certificate; undefined: the system's. */
  readonly ca: readonly string[] | undefined;
  /** AllowAll | DefaultAndLocalhost | Strict | Default ([transport.passthru_https] sender.hostname_verifier). */
  readonly hostnameVerifier: string;
  readonly log: Logger;
}

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * `https://cp:9443/services/` (the form the reference system's service_url keys take) -> `https://cp:9443`;
 * another path is kept (a control plane behind a path-routing proxy).
 */
export function controlPlaneBase(url: string): string {
  const u = new URL(url);
  const p = u.pathname.replace(/\/+$/, '').replace(/\/services$/, '');
  return `${u.protocol}//${u.host}${p}`;
}

/**
 * HTTP(S) calls from a gateway-worker to the control plane's internal endpoints, with HTTP Basic as
 * [apim.event_hub] username/password. TLS is verified against the sender trust store
 * ([transport.passthru_https] sender.trust_store) and hostname verifier. Several URLs fail over in order;
 * the one that answered last is tried first.
 */
export class ControlPlaneClient {
  private readonly agent: Agent;
  private readonly auth: string;
  private preferred = 0;

  constructor(private readonly o: ControlPlaneClientOptions) {
    if (o.urls.length === 0) throw new Error('no control plane URL');
    const verifier = o.hostnameVerifier.toLowerCase();
    this.agent = new Agent({
      connections: 4,
      keepAliveTimeout: 30_000,
      connect: {
        rejectUnauthorized: true,
        ...(o.ca ? { ca: [...o.ca] } : {}),
        checkServerIdentity: (host: string, cert: tls.PeerCertificate) => {
          if (verifier === 'allowall') return undefined;
          if (verifier === 'defaultandlocalhost' && LOCAL_NAMES.has(host)) return undefined;
          return tls.checkServerIdentity(host, cert);
        },
      },
    });
    this.auth = 'Basic ' + Buffer.from(`${o.username}:${o.password ?? ''}`).toString('base64');
  }

  get urls(): readonly string[] {
    return this.o.urls;
  }

  private order(): string[] {
    const u = this.o.urls;
    return [...u.slice(this.preferred), ...u.slice(0, this.preferred)];
  }

  /** GET a JSON document; throws ControlPlaneError when every URL fails. */
  async get<T>(path: string, timeoutMs = 15_000, signal?: AbortSignal): Promise<T> {
    return (await this.call('GET', path, undefined, timeoutMs, signal)).json as T;
  }

  /** POST JSON; answers the status (2xx and 404 are answers, anything else throws). */
  async post(path: string, body: unknown, timeoutMs = 10_000): Promise<{ status: number; json: unknown }> {
    return this.call('POST', path, body, timeoutMs);
  }

  private async call(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<{ status: number; json: unknown }> {
    let last: Error | undefined;
    for (const base of this.order()) {
      try {
        const res = await request(`${base}${path}`, {
          method, dispatcher: this.agent,
          headers: { authorization: this.auth, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
          ...(signal ? { signal } : {}),
        });
        const text = await res.body.text();
        if (res.statusCode === 401 || res.statusCode === 403) {
          throw new ControlPlaneError(`the control plane at ${base} refused the [apim.event_hub] credentials (${res.statusCode})`, res.statusCode);
        }
        if (res.statusCode >= 300 && res.statusCode !== 404) throw new ControlPlaneError(`${method} ${base}${path}: ${res.statusCode} ${text.slice(0, 200)}`, res.statusCode);
        this.preferred = this.o.urls.indexOf(base);
        let json: unknown;
        try { json = text ? JSON.parse(text) : undefined; } catch { throw new ControlPlaneError(`${method} ${base}${path}: the answer is not JSON`, res.statusCode); }
        return { status: res.statusCode, json };
      } catch (err) {
        if (signal?.aborted) throw err;
        last = err instanceof ControlPlaneError ? err : new ControlPlaneError(`${method} ${base}${path}: ${(err as Error).message}`);
      }
    }
    throw last!;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
