import { BodyMode } from './sender/sender-handler.js';
import { hostMatches } from './sender/proxy-rules.js';
import { KeptFields } from './kept-fields.js';
import { KeptLine } from './kept-line.js';
import { KeptRequestHead } from './kept-request-head.js';
import type { HeaderSource, HeaderTarget } from './head-source.js';

export type { HeaderSource, HeaderTarget } from './head-source.js';

export interface HeaderRulesSettings {
  readonly userAgentPreserve: boolean;
  readonly serverPreserve: boolean;
  readonly disableKeepAlive: boolean;
  /** Backend hosts (patterns) whose 5xx answers are logged as warnings; `*` for all. */
  readonly warnOnHttp500: readonly string[];
  /** [apim.transport_headers] excludeRequestHeaders: removed from responses to the client. */
  readonly excludeFromClientResponse: readonly string[];
  /** [apim.transport_headers] excludeResponseHeaders: removed from requests to the backend. */
  readonly excludeFromBackendRequest: readonly string[];
}

/** RFC 9110 §7.6.1 hop-by-hop fields, and the framing fields the gateway writes itself. */
const REQUEST_DROP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'proxy-authorization', 'proxy-authenticate', 'host', 'content-length', 'expect', 'http2-settings',
]);
const RESPONSE_DROP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'proxy-authenticate', 'content-length', 'date',
]);

export const SLUICE_USER_AGENT = 'Synapse-PT-HttpComponents-NIO';
export const SLUICE_SERVER = 'Sluice-PassThrough-HTTP';

// Lines of the heads that repeat from call to call, kept whole: a head is a rope of its pieces, and each
// piece costs a concatenation when it is built and a step when the write flattens it (docs/performance.md).
const USER_AGENT_LINE = `user-agent: ${SLUICE_USER_AGENT}\r\n`;
const SERVER_LINE = `server: ${SLUICE_SERVER}\r\n`;
const FORWARDED_HTTP_LINE = 'x-forwarded-proto: http\r\n';
const FORWARDED_HTTPS_LINE = 'x-forwarded-proto: https\r\n';
/** ` HTTP/1.1` ending the request line with the Host line, X-Forwarded-For of a request that came without
 * one, and the body's Content-Length, for the previous call's host, client and length (kept-line.ts). */
const versionAndHostLine = new KeptLine<string>(' HTTP/1.1\r\nhost: ');
const forwardedForLine = new KeptLine<string>('x-forwarded-for: ');
const requestLengthLine = new KeptLine<number>('content-length: ');
const keptResponseFields = new KeptFields();
/** The previous backend request head with its inputs (kept-request-head.ts). */
const keptRequestHead = new KeptRequestHead();
/** The kept fields' lines with the Server line after them (the same string while they repeat). */
const withServerLine = new KeptLine<string>('', SERVER_LINE);

/**
 * Header rules of the pass-through engine, both ways: hop-by-hop fields removed, X-Forwarded-* added, Host
 * rewritten for the backend, [passthru_http] http.user.agent.preserve / http.server.preserve applied.
 */
export class HeaderRules {
  private readonly requestDrop: Set<string>;
  private readonly responseDrop: Set<string>;
  // Lengths of the dropped names: most headers are ruled out by length alone, before any hashing or
  // lower-casing (names are new strings on every call).
  private readonly requestLengths = new Uint8Array(256);
  private readonly responseLengths = new Uint8Array(256);
  /** The dropped response names by length, for the compare in place. */
  private readonly responseByLength: string[][] = [];

  constructor(readonly settings: HeaderRulesSettings) {
    this.requestDrop = new Set([...REQUEST_DROP, ...settings.excludeFromBackendRequest.map((h) => h.toLowerCase())]);
    if (!settings.userAgentPreserve) this.requestDrop.add('user-agent');
    this.responseDrop = new Set([...RESPONSE_DROP, ...settings.excludeFromClientResponse.map((h) => h.toLowerCase())]);
    if (!settings.serverPreserve) this.responseDrop.add('server');
    for (const n of this.requestDrop) if (n.length < 256) this.requestLengths[n.length] = 1;
    for (const n of this.responseDrop) {
      if (n.length >= 256) continue;
      this.responseLengths[n.length] = 1;
      (this.responseByLength[n.length] ??= []).push(n);
    }
  }

  warnOnHttp500(host: string): boolean {
    const w = this.settings.warnOnHttp500;
    return w.length > 0 && w.some((p) => hostMatches(p, host));
  }

  dropsRequestHeader(lowerName: string): boolean {
    return lowerName.length < 256 && this.requestLengths[lowerName.length] === 1 && this.requestDrop.has(lowerName);
  }

  dropsResponseHeader(lowerName: string): boolean {
    return lowerName.length < 256 && this.responseLengths[lowerName.length] === 1 && this.responseDrop.has(lowerName);
  }

  /** The same, for a name in any case (backend response headers), compared in place: no lower-cased copy. */
  dropsResponseHeaderAnyCase(name: string): boolean {
    if (name.length >= 256 || this.responseLengths[name.length] !== 1) return false;
    const sameLength = this.responseByLength[name.length]!;
    for (let i = 0; i < sameLength.length; i++) if (equalsLowerCase(name, sameLength[i]!)) return true;
    return false;
  }
}

/** Whether `name` is `lower` in any ASCII case (header names are tokens: ASCII only). */
function equalsLowerCase(name: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** A Connection value that lists no header name: the one nearly every peer sends. */
function onlyPersistence(value: string): boolean {
  return (value.length === 10 || value.length === 5) && (value === 'keep-alive' || value === 'close' || value === 'Keep-Alive' || value === 'Close');
}

/** Names listed in a Connection header are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionListed(headers: readonly string[]): string[] | null {
  let out: string[] | null = null;
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] !== 'connection') continue;
    const value = headers[i + 1]!;
    if (onlyPersistence(value)) continue;
    for (const t of value.split(',')) {
      const n = t.trim().toLowerCase();
      if (n && n !== 'close' && n !== 'keep-alive') (out ??= []).push(n);
    }
  }
  return out;
}

/** The request line and headers for the backend, as one latin1 string ending in the blank line. */
export function buildBackendHead(src: HeaderSource, target: HeaderTarget, rules: HeaderRules, mode: BodyMode, length: number): string {
  return keptRequestHead.find(src, target, rules, mode, length)
    ?? keptRequestHead.keep(src, target, rules, mode, length, composeBackendHead(src, target, rules, mode, length));
}

/** buildBackendHead made anew (exported for the test that holds the kept head to it). */
export function composeBackendHead(src: HeaderSource, target: HeaderTarget, rules: HeaderRules, mode: BodyMode, length: number): string {
  const resource = src.resourcePath === '/' && target.basePath !== '' ? '' : src.resourcePath;
  let head = `${src.method} ${target.absolutePrefix}${target.basePath}${resource === '' && target.basePath === '' ? '/' : resource}${src.query ? '?' + src.query : ''}${versionAndHostLine.of(target.hostHeader)}`;
  const h = src.reqHeaders;
  const listed = connectionListed(h);
  const removed = src.removedBackendHeaders;
  let xff: string | undefined;
  let xfProto: string | undefined;
  let xfHost: string | undefined;
  let originalHost = '';
  for (let i = 0; i < h.length; i += 2) {
    const name = h[i]!;
    if (name === 'host') { originalHost = h[i + 1]!; continue; }
    if (rules.dropsRequestHeader(name)) continue;
    if (listed !== null && listed.includes(name)) continue;
    if (removed.length !== 0 && removed.includes(name)) continue;
    if (name === 'x-forwarded-for') { xff = xff === undefined ? h[i + 1] : `${xff}, ${h[i + 1]}`; continue; }
    if (name === 'x-forwarded-proto') { xfProto = h[i + 1]; continue; }
    if (name === 'x-forwarded-host') { xfHost = h[i + 1]; continue; }
    head += `${name}: ${h[i + 1]}\r\n`;
  }
  const extra = src.extraBackendHeaders;
  for (let i = 0; i < extra.length; i += 2) head += `${extra[i]}: ${extra[i + 1]}\r\n`;
  head += xff === undefined ? forwardedForLine.of(src.clientIp) : `x-forwarded-for: ${xff}, ${src.clientIp}\r\n`;
  head += xfProto !== undefined ? `x-forwarded-proto: ${xfProto}\r\n` : src.secure ? FORWARDED_HTTPS_LINE : FORWARDED_HTTP_LINE;
  if (originalHost !== '' || xfHost !== undefined) head += `x-forwarded-host: ${xfHost ?? originalHost}\r\n`;
  if (!rules.settings.userAgentPreserve) head += USER_AGENT_LINE;
  if (mode === BodyMode.CONTENT_LENGTH) head += requestLengthLine.of(length);
  else if (mode === BodyMode.CHUNKED) head += 'transfer-encoding: chunked\r\n';
  if (rules.settings.disableKeepAlive) head += 'connection: close\r\n';
  return head + target.proxyAuthorizationLine + '\r\n';
}

/**
 * The backend's headers for the client as `name: value\r\n` lines, with the hop-by-hop and framing fields
 * removed (the front door writes Date, the framing and Connection itself) and what the phases added after
 * them. llhttp has already refused CR, LF, NUL and other controls in the backend's names and values, and its
 * values are latin1 (one character per byte), written back as the same bytes.
 */
export function responseHeaderLines(headers: readonly string[], rules: HeaderRules, extra: readonly string[]): string {
  let block = keptResponseFields.find(headers, rules) ?? keptResponseFields.keep(headers, rules, backendResponseLines(headers, rules));
  if (extra.length === 0) return rules.settings.serverPreserve ? block : withServerLine.of(block);
  for (let i = 0; i < extra.length; i += 2) block += `${extra[i]}: ${extra[i + 1]}\r\n`;
  if (!rules.settings.serverPreserve) block += SERVER_LINE;
  return block;
}

/** The lines of the backend's own fields that go on to the client. */
function backendResponseLines(headers: readonly string[], rules: HeaderRules): string {
  let block = '';
  const listed = connectionListedAnyCase(headers);
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    if (rules.dropsResponseHeaderAnyCase(name)) continue;
    if (listed !== null && listed.includes(name.toLowerCase())) continue;
    block += `${name}: ${headers[i + 1]}\r\n`;
  }
  return block;
}

/**
 * Headers of a local answer (a fault, a CORS preflight, a mediation `respond`) as `name: value\r\n` lines.
 * Values are bytes, one per character (mediation made its text UTF-8 bytes: HeaderMap.headEntries); the
 * caller has checked that none holds a control or a character above U+00FF (transport/field-values.ts).
 */
export function headerLines(headers: readonly (readonly [string, string])[], extra: readonly string[]): string {
  let block = '';
  for (const [k, v] of headers) block += `${k}: ${v}\r\n`;
  for (let i = 0; i < extra.length; i += 2) block += `${extra[i]}: ${extra[i + 1]}\r\n`;
  return block;
}

/** connectionListed for names in any case: only a 10-character name can be Connection. */
function connectionListedAnyCase(headers: readonly string[]): string[] | null {
  for (let i = 0; i < headers.length; i += 2) {
    const n = headers[i]!;
    if (n.length === 10 && equalsLowerCase(n, 'connection')) return connectionListed(['connection', headers[i + 1]!]);
  }
  return null;
}
