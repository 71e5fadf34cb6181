import { RequestHead } from './request-head.js';
import { DoorRefusal, Refusal } from './refusals.js';
import { normalizePath, TargetRefusal, type NormalizedTarget } from './request-target.js';
import type { DoorSettings } from '../../conf/views/front-door.js';

const TARGET_REASON: Record<number, string> = {
  [TargetRefusal.BAD_ENCODING]: 'an invalid percent-encoding',
  [TargetRefusal.ENCODED_SLASH]: 'an encoded slash or backslash',
  [TargetRefusal.BACKSLASH]: 'a backslash',
  [TargetRefusal.CONTROL]: 'an encoded control character',
  [TargetRefusal.PATH_PARAMETERS]: "a ';' path parameter",
  [TargetRefusal.ABOVE_ROOT]: "a '..' segment above the root",
  [TargetRefusal.NOT_ASCII]: 'a byte outside ASCII',
  [TargetRefusal.FRAGMENT]: 'a fragment',
  [TargetRefusal.BAD_FORM]: 'a form the gateway does not serve',
};

const scratch: NormalizedTarget = { refusal: 0, path: '', minDepth: -1, detail: '' };

/** uri-host [ ":" port ] (RFC 9110 §7.2): an IP literal, or a name of unreserved characters and escapes. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~%]+)(?::[0-9]{0,5})?$/;

/** Whether `v` is `chunked` in any case, with nothing else (OWS was trimmed by llhttp). */
function isChunked(v: string): boolean {
  return v.length === 7 && (v === 'chunked' || v.toLowerCase() === 'chunked');
}

/** A transfer-coding list of tokens (RFC 9110 §5.6.1, §10.1.4), for telling 501 from 400. */
const CODING_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*;[^,]*)?(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*;[^,]*)?)*$/;

/**
 * Checks a head llhttp parsed (strict: it has already refused bad tokens, bare CR/LF, obs-fold, controls in
 * values, malformed or repeated Content-Length, Content-Length with Transfer-Encoding, a TE list that does
 * not end in chunked) and fills `head`. What llhttp lets through and a gateway must not (RFC 9112 §3, §6, §7):
 * versions other than 1.0 and 1.1, Transfer-Encoding other than exactly `chunked`, TE on HTTP/1.0, Host
 * missing, repeated or contradicting an absolute-form target, CONNECT, limits, and the target itself.
 * Returns the refusal, or null when the head is good.
 */
export function checkHead(
  s: DoorSettings, head: RequestHead, major: number, minor: number, rawHeaders: readonly string[], method: string, target: string,
  upgrade: boolean,
): DoorRefusal | null {
  head.method = method;
  head.target = target;
  if (major !== 1 || (minor !== 0 && minor !== 1)) return new DoorRefusal(Refusal.VERSION, `HTTP/${major}.${minor} is not served; use HTTP/1.1`);
  head.minor = minor;
  if (method === 'CONNECT') return new DoorRefusal(Refusal.METHOD, 'CONNECT is not served by the gateway');
  if (target.length > s.maxTargetBytes) {
    return new DoorRefusal(Refusal.TARGET_TOO_LONG, `The request target is ${target.length} bytes; the limit is ${s.maxTargetBytes}`);
  }
  const n = rawHeaders.length;
  if (n > s.maxHeaderCount * 2) return new DoorRefusal(Refusal.HEADERS_TOO_LARGE, `${n / 2} header fields; the limit is ${s.maxHeaderCount}`);
  const h = head.headers;
  let bytes = 0;
  let host: string | undefined;
  let hosts = 0;
  let te: string | undefined;
  let upgradeValue = '';
  for (let i = 0; i < n; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    bytes += name.length + value.length + 4;
    h.push(name, value);
    switch (name.length) {
      case 4: if (name === 'host') { host = value; hosts++; } break;
      case 6: if (name === 'expect') {
        if (value.length !== 12 || value.toLowerCase() !== '100-continue') return new DoorRefusal(Refusal.EXPECTATION, 'Only Expect: 100-continue is understood');
        head.expectContinue = true;
      } break;
      case 7: if (name === 'upgrade') upgradeValue = value; break;
      case 14: if (name === 'content-length') head.contentLength = Number(value); break;
      case 17: if (name === 'transfer-encoding') {
        if (te !== undefined) return new DoorRefusal(Refusal.BAD_REQUEST, 'Transfer-Encoding is repeated');
        te = value;
      } break;
    }
  }
  if (bytes > s.maxHeaderBytes) return new DoorRefusal(Refusal.HEADERS_TOO_LARGE, `The header section is ${bytes} bytes; the limit is ${s.maxHeaderBytes}`);
  if (te !== undefined) {
    if (minor === 0) return new DoorRefusal(Refusal.BAD_REQUEST, 'Transfer-Encoding in an HTTP/1.0 request');
    if (!isChunked(te)) {
      if (!CODING_LIST.test(te)) return new DoorRefusal(Refusal.BAD_REQUEST, 'A malformed Transfer-Encoding');
      // RFC 9112 §6.3: chunked not last, the body's length is unknown (400); §6.1: a coding the gateway does
      // not apply before a final chunked (501).
      const codings = te.split(',');
      const last = codings[codings.length - 1]!.split(';')[0]!.trim();
      if (last.toLowerCase() !== 'chunked') return new DoorRefusal(Refusal.BAD_REQUEST, `Transfer-Encoding "${printable(te)}" does not end with chunked`);
      return new DoorRefusal(Refusal.UNSUPPORTED_CODING, `Transfer-Encoding "${printable(te)}": only chunked is accepted`);
    }
    head.chunked = true;
  }
  if (hosts > 1) return new DoorRefusal(Refusal.BAD_REQUEST, 'Host is repeated');
  if (hosts === 0 && minor === 1) return new DoorRefusal(Refusal.BAD_REQUEST, 'Host is missing');
  if (host !== undefined && host !== '' && !HOST.test(host)) return new DoorRefusal(Refusal.BAD_REQUEST, 'Host is not a host and port (RFC 9112 §3.2)');
  if (upgrade && upgradeValue !== '' && method === 'GET' && upgradeValue.toLowerCase() === 'websocket') head.websocket = true;
  return splitTarget(s, head, target, host);
}

/** Origin-form, absolute-form or `*`: the path is normalised, the query kept as it is. */
function splitTarget(s: DoorSettings, head: RequestHead, target: string, host: string | undefined): DoorRefusal | null {
  // A fragment is no part of a request target (RFC 9112 §3.2), in the path or after the query.
  if (target.includes('#')) return new DoorRefusal(Refusal.BAD_REQUEST, 'The request target has a fragment');
  let start = 0;
  if (target.charCodeAt(0) !== 47 /* / */) {
    if (target === '*') {
      if (head.method !== 'OPTIONS') return new DoorRefusal(Refusal.BAD_REQUEST, "The target '*' is only for OPTIONS");
      head.path = '*';
      return null;
    }
    // Absolute-form (RFC 9112 §3.2.2): the authority is the target's; it is routed by its path.
    const m = /^https?:\/\/([^/?#@]+)/i.exec(target);
    if (m === null) return new DoorRefusal(Refusal.BAD_REQUEST, 'The request target is not in origin or absolute form');
    head.authority = m[1]!;
    if (host !== undefined && host.toLowerCase() !== head.authority.toLowerCase()) {
      return new DoorRefusal(Refusal.BAD_REQUEST, 'Host does not match the authority of the absolute-form target');
    }
    start = m[0].length;
  }
  const q = target.indexOf('?', start);
  const raw = q < 0 ? (start === 0 ? target : target.slice(start)) : target.slice(start, q);
  head.query = q < 0 ? '' : target.slice(q + 1);
  if (raw === '') { head.path = '/'; return null; }
  if (raw.charCodeAt(0) !== 47) return new DoorRefusal(Refusal.BAD_REQUEST, 'The request target is not in origin or absolute form');
  normalizePath(raw, s.target, scratch);
  if (scratch.refusal !== TargetRefusal.NONE) {
    return new DoorRefusal(Refusal.BAD_REQUEST, `The request path has ${TARGET_REASON[scratch.refusal] ?? 'a form that cannot be normalised safely'}${scratch.detail ? ` (${scratch.detail})` : ''}`);
  }
  head.path = scratch.path;
  head.minDepth = scratch.minDepth;
  return null;
}

/** A header value for a fault description: printable ASCII only. */
function printable(v: string): string {
  return v.replace(/[^\x20-\x7e]/g, '?').slice(0, 64);
}
