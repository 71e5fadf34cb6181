/**
 * The message a sequence works on: the reference system's message context reduced to what sequences use.
 * Fixed shape: every field is set in the constructor and none is added later (STYLE.md).
 *
 * Scopes, as in the reference:
 * - default (`get-property('X')`, `$ctx:X`): `properties`, then the read-only call facts (api.ut.api, ...).
 *   ERROR_CODE, ERROR_MESSAGE, ERROR_DETAIL and ERROR_EXCEPTION live here.
 * - axis2 (`$axis2:X`): `axis2` (HTTP_SC, messageType, ContentType, NO_ENTITY_BODY, ...), then HTTP_METHOD
 *   and REMOTE_ADDR from the facts.
 * - transport (`$trp:X`): `headers`. In a request flow, the headers going to the backend; in a response or
 *   fault flow, the headers of the response to the client (a fault starts with none: request headers are
 *   never echoed in a fault).
 */
import { randomUUID } from 'node:crypto';
import { BodyBuildError, defaultCodecs, type BuiltBody, type Codecs, type FormatSource } from './codecs.js';
import { UnsafeHeaderError } from './errors.js';
import { badValueCharAt, fieldProblem, isFieldName } from '../transport/field-values.js';

export type Direction = 'request' | 'response' | 'fault';
export type PropertyValue = string | number | boolean;

/** Read-only facts of the call, set by the gateway; sequences read them through get-property. */
export interface CallFacts {
  readonly apiName?: string;
  readonly apiVersion?: string;
  /** `/pizzashack` (without the version). */
  readonly apiContext?: string;
  readonly apiPublisher?: string;
  /** The matched resource's URI template (`/menu/{id}`). */
  readonly resource?: string;
  readonly applicationName?: string;
  readonly applicationId?: string;
  readonly applicationOwner?: string;
  readonly consumerKey?: string;
  readonly userId?: string;
  /** PRODUCTION or SANDBOX. */
  readonly keyType?: string;
  readonly subscriptionTier?: string;
  readonly clientIp?: string;
  readonly method?: string;
  /** The request path with its query string. */
  readonly path?: string;
  readonly host?: string;
  /** The call's trace or message id, when the gateway has one (MessageID otherwise generated on first read). */
  readonly messageId?: string;
}

type FactReader = (f: CallFacts) => string | undefined;

/**
 * Names `get-property('NAME')` resolves from the facts (after the message's own properties), with the
 * reference system's spelling.
 */
export const FACT_PROPERTIES: ReadonlyMap<string, FactReader> = new Map<string, FactReader>([
  ['api.ut.api', (f) => f.apiName],
  ['API_NAME', (f) => f.apiName],
  ['api.ut.version', (f) => f.apiVersion],
  ['SYNAPSE_REST_API_VERSION', (f) => f.apiVersion],
  ['api.ut.context', (f) => (f.apiContext === undefined ? undefined : f.apiVersion ? `${f.apiContext}/${f.apiVersion}` : f.apiContext)],
  ['REST_API_CONTEXT', (f) => (f.apiContext === undefined ? undefined : f.apiVersion ? `${f.apiContext}/${f.apiVersion}` : f.apiContext)],
  ['api.ut.api_version', (f) => (f.apiName === undefined ? undefined : `${f.apiName}:v${f.apiVersion ?? ''}`)],
  ['SYNAPSE_REST_API', (f) => (f.apiName === undefined ? undefined : `${f.apiPublisher ?? 'admin'}--${f.apiName}:v${f.apiVersion ?? ''}`)],
  ['api.ut.apiPublisher', (f) => f.apiPublisher],
  ['api.ut.resource', (f) => f.resource],
  ['API_ELECTED_RESOURCE', (f) => f.resource],
  ['api.ut.HTTP_METHOD', (f) => f.method],
  ['api.ut.userId', (f) => f.userId],
  ['api.ut.application.name', (f) => f.applicationName],
  ['api.ut.application.id', (f) => f.applicationId],
  ['api.ut.application.owner', (f) => f.applicationOwner],
  ['api.ut.consumerKey', (f) => f.consumerKey],
  ['api.ut.hostName', (f) => f.host],
  ['API_KEY_TYPE', (f) => f.keyType],
  ['api.ut.tier', (f) => f.subscriptionTier],
  ['REST_FULL_REQUEST_PATH', (f) => f.path],
  ['REMOTE_ADDR', (f) => f.clientIp],
]);

/** axis2-scope names resolved from the facts. */
export const FACT_AXIS2: ReadonlyMap<string, FactReader> = new Map<string, FactReader>([
  ['HTTP_METHOD', (f) => f.method],
  ['REMOTE_ADDR', (f) => f.clientIp],
  ['REST_URL_POSTFIX', (f) => f.path],
]);

/**
 * Case-insensitive headers; keeps the case a name was set with. Single-valued (a set replaces).
 *
 * What a sequence sets is checked here, where it is set: a name must be a token and a value may not hold CR,
 * LF, NUL, another control but HTAB, or DEL (UnsafeHeaderError). A value a sequence sets is text: in a head it
 * is written as its UTF-8 bytes (`headEntries`), so no character can lose its high byte on the way
 * (transport/field-values.ts). The headers the message starts with were parsed by llhttp (one character per
 * byte) and keep their bytes; they are not checked again here; the gateway
 * checks a whole mediated head before writing it. Each entry knows whether the sequence set it (`own`):
 * `<respond/>` in a request flow answers with those only (docs/mediation.md).
 */
const NON_ASCII = /[^\x00-\x7f]/;

export class HeaderMap {
  private readonly map = new Map<string, { name: string; value: string; own: boolean }>();

  constructor(init?: Iterable<readonly [string, string]>) {
    if (init) for (const [n, v] of init) this.put(n.toLowerCase(), n, v, false);
  }

  get size(): number { return this.map.size; }
  get(name: string): string | undefined { return this.map.get(name.toLowerCase())?.value; }
  /** `lower` must be the lower-cased name (precomputed by compiled mediators). */
  getLower(lower: string): string | undefined { return this.map.get(lower)?.value; }
  has(name: string): boolean { return this.map.has(name.toLowerCase()); }
  set(name: string, value: string): void { this.setLower(name.toLowerCase(), name, value); }
  setLower(lower: string, name: string, value: string): void {
    if (!isFieldName(name) || badValueCharAt(value, true) >= 0) throw new UnsafeHeaderError(name, fieldProblem(name, value, true));
    this.put(lower, name, value, true);
  }
  delete(name: string): boolean { return this.map.delete(name.toLowerCase()); }
  deleteLower(lower: string): boolean { return this.map.delete(lower); }
  clear(): void { this.map.clear(); }
  /** Every header; or, with `ownOnly`, those the sequence set. */
  entries(ownOnly = false): [string, string][] {
    const out: [string, string][] = [];
    for (const e of this.map.values()) if (!ownOnly || e.own) out.push([e.name, e.value]);
    return out;
  }

  /**
   * The headers as a head carries them (one character per byte): what the sequence set is text and goes as
   * its UTF-8 bytes; what the message came with keeps its bytes. With `ownOnly`, those the sequence set.
   */
  headEntries(ownOnly = false): [string, string][] {
    const out: [string, string][] = [];
    for (const e of this.map.values()) {
      if (ownOnly && !e.own) continue;
      out.push([e.name, e.own && NON_ASCII.test(e.value) ? Buffer.from(e.value, 'utf8').toString('latin1') : e.value]);
    }
    return out;
  }

  private put(lower: string, name: string, value: string, own: boolean): void {
    const e = this.map.get(lower);
    if (e) { e.value = value; e.own ||= own; } else this.map.set(lower, { name, value, own });
  }
}

/** The outcome of mediation as an HTTP response (a fault, a `respond`, a CORS preflight reply). */
export interface MediatedResponse {
  readonly status: number;
  /** Response headers, Content-Type included when there is a body. */
  readonly headers: readonly (readonly [string, string])[];
  /** null: no body (NO_ENTITY_BODY, or nothing built). */
  readonly body: Buffer | null;
}

export class MediationMessage implements FormatSource {
  readonly properties: Map<string, PropertyValue>;
  readonly axis2: Map<string, PropertyValue>;
  readonly headers: HeaderMap;
  /** The body bytes as they would be sent now; null when there is none. */
  body: Buffer | null;
  /** Content type of `body`. */
  contentType: string | null;
  private builtCache: BuiltBody | null;
  private messageIdValue: string | null;

  constructor(
    readonly direction: Direction,
    readonly facts: CallFacts = {},
    init: {
      readonly headers?: Iterable<readonly [string, string]>;
      readonly body?: Buffer | null;
      readonly contentType?: string | null;
      readonly properties?: Iterable<readonly [string, PropertyValue]>;
      readonly axis2?: Iterable<readonly [string, PropertyValue]>;
    } = {},
    readonly codecs: Codecs = defaultCodecs(),
  ) {
    this.properties = new Map(init.properties);
    this.axis2 = new Map(init.axis2);
    this.headers = new HeaderMap(init.headers);
    this.body = init.body ?? null;
    this.contentType = init.contentType ?? this.headers.getLower('content-type') ?? null;
    this.builtCache = null;
    this.messageIdValue = facts.messageId ?? null;
  }

  /** `MessageID`: the call's id, or a urn:uuid made on first read. */
  get messageId(): string {
    this.messageIdValue ??= `urn:uuid:${randomUUID()}`;
    return this.messageIdValue;
  }

  /** Replaces the body; `built` (when the caller has it) saves building it again. */
  setBody(body: Buffer | null, contentType: string | null, built: BuiltBody | null = null): void {
    this.body = body;
    this.contentType = contentType;
    this.builtCache = built;
  }

  /** The body's object model, built at most once per body (throws BodyBuildError when it does not parse). */
  built(): BuiltBody | null {
    if (this.builtCache) return this.builtCache;
    if (!this.body) return null;
    this.builtCache = this.codecs.build(this.body, this.contentType ?? 'application/octet-stream');
    return this.builtCache;
  }

  /** The body as a JSON value for json-eval; undefined without a body or when it has no JSON view. */
  jsonBody(): unknown {
    const b = this.built();
    return b ? this.codecs.jsonView(b) : undefined;
  }

  /** HTTP_SC as a number, or `fallback` when unset or not a status. */
  status(fallback: number): number {
    const v = this.axis2.get('HTTP_SC');
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
    return Number.isInteger(n) && n >= 100 && n <= 999 ? n : fallback;
  }

  /**
   * The message as the HTTP response to send: status from HTTP_SC, body converted to `messageType` by the
   * formatters when needed, no body when NO_ENTITY_BODY is true, Content-Type from messageType, else the
   * Content-Type header, else the body's own type. `ownHeadersOnly`: only the headers the sequence set
   * (a request flow answering the client must not hand the request's headers back).
   */
  toResponse(fallbackStatus: number, ownHeadersOnly = false): MediatedResponse {
    const status = this.status(fallbackStatus);
    const noBody = isTrue(this.axis2.get('NO_ENTITY_BODY'));
    const messageType = this.axis2.get('messageType');
    let body = noBody ? null : this.body;
    let contentType: string | null = null;
    if (body) {
      contentType = typeof messageType === 'string' && messageType !== '' ? messageType : this.headers.getLower('content-type') ?? this.contentType;
      if (contentType && contentType !== this.contentType) {
        try {
          body = this.codecs.format(this, contentType) ?? body;
        } catch (err) {
          if (!(err instanceof BodyBuildError)) throw err;
          // A body that does not parse as its type cannot be converted: sent as it is, typed as it was.
          contentType = this.contentType;
        }
      }
    }
    const headers: [string, string][] = [];
    for (const e of this.headers.headEntries(ownHeadersOnly)) {
      const lower = e[0].toLowerCase();
      if (lower === 'content-type' || lower === 'content-length' || lower === 'transfer-encoding') continue;
      headers.push(e);
    }
    if (body && contentType) headers.push(['Content-Type', contentType]);
    return { status, headers, body };
  }
}

export function isTrue(v: PropertyValue | undefined): boolean {
  return v === true || (typeof v === 'string' && v.toLowerCase() === 'true');
}
