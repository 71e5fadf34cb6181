import type { Logger } from 'pino';
import type { CallRecord } from '../gateway/telemetry/types.js';
import type { AccessLogView } from '../../conf/views/operations.js';
import type { ServletRequestLog } from '../servlet/server.js';
import { FileSink } from './file-sink.js';
import { loggablePath } from '../../transport/sensitive-fields.js';

/** A finished request on a servlet port (token endpoint, admin API, health, metrics). */
export type ServletRecord = ServletRequestLog;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

// The last second formatted: a busy gateway writes thousands of lines within one second.
let lastSecond = -1;
let lastClf = '';

/** `[22/Nov/2026:10:00:00 +0000]`, UTC. */
export function clfTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second === lastSecond) return lastClf;
  const d = new Date(ms);
  lastClf = `[${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000]`;
  lastSecond = second;
  return lastClf;
}

/** A field as written between quotes: `"` and `\` escaped, control and non-ASCII bytes as \xNN (no log injection). */
export function quoted(v: string): string {
  if (v === '') return '"-"';
  // Nearly every field is plain printable ASCII: one scan, one concatenation.
  let plain = true;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c < 0x20 || c > 0x7e) { plain = false; break; }
  }
  if (plain) return '"' + v + '"';
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) out += '\\' + v[i];
    else if (c < 0x20 || c === 0x7f || c > 0x7e) out += c > 0xff ? encodeURIComponent(v[i]!) : `\\x${c.toString(16).padStart(2, '0')}`;
    else out += v[i];
  }
  return `"${out}"`;
}

const TOKEN_UNSAFE = /[\s"\\\x00-\x1f\x7f]/;
const TOKEN_UNSAFE_ALL = new RegExp(TOKEN_UNSAFE.source, 'g');

/** An unquoted token: spaces and control characters escaped, '-' when empty. */
export function token(v: string): string {
  if (v === '') return '-';
  if (!TOKEN_UNSAFE.test(v)) return v;
  return v.replace(TOKEN_UNSAFE_ALL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Milliseconds with three decimals, as `toFixed(3)` writes them but without its cost (a call into V8's
 * C++ per line, about 900 instructions). At an exact tie in the fourth decimal the last digit may round the
 * other way; a log line does not care.
 */
export function millis3(ms: number): string {
  if (!(ms >= 0 && ms < 1e9)) return ms.toFixed(3);
  const us = Math.round(ms * 1000);
  const whole = Math.floor(us / 1000);
  const frac = us - whole * 1000;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

/** The quoted request field: method, path with the credential parameters of its query masked, protocol. */
export function requestField(method: string, path: string, query: string): string {
  return quoted(`${method} ${loggablePath(path, query)} HTTP/1.1`);
}

/**
 * A combined line from fields already escaped (`token`, `quoted`, `requestField`), for a line built from a
 * record. A batch built from columns writes the same fields as bytes (access-log-batch.ts); its test holds
 * the two to the same output.
 */
export function combinedLine(
  ip: string, user: string, startedAt: number, request: string, status: number, bytes: number,
  referer: string, agent: string, durationMs: number, api: string, application: string, errorCode: number,
): string {
  return `${ip} - ${user} ${clfTime(startedAt)} ${request} ${status} ${bytes > 0 ? bytes : '-'} ${referer} ${agent} ${millis3(durationMs)} `
    + `${api} ${application} ${errorCode !== 0 ? errorCode : '-'}\n`;
}

/**
 * One access log line (docs/operations.md): the Apache combined format plus the request time in
 * milliseconds, the API (name:version), the application and the error code:
 *
 *   127.0.0.1 - admin [22/Nov/2026:10:00:00 +0000] "GET /secure/1.0.0/x HTTP/1.1" 200 2 "-" "curl/8.5.0" 3.412 AcmeSecure:1.0.0 AcmeApp -
 *
 * Credential query parameters are masked; no header but Referer and User-Agent is written.
 */
export function gatewayLine(r: CallRecord): string {
  return combinedLine(
    token(r.clientIp), token(r.auth?.user ?? ''), r.startedAt, requestField(r.method, r.path, r.query), r.status, r.bytes,
    quoted(r.referer), quoted(r.userAgent), r.durationMs, token(r.api ? `${r.api.name}:${r.api.version}` : ''), token(r.auth?.application ?? ''), r.errorCode,
  );
}

/** The same format for servlet requests (API and application `-`). */
export function servletLine(r: ServletRecord): string {
  return combinedLine(token(r.clientIp), '-', r.startedAt, requestField(r.method, r.path, r.query), r.status, r.bytes, quoted(r.referer), quoted(r.userAgent), r.durationMs, '-', '-', 0);
}

/**
 * One access record as JSON (`[http_access_log] format = "json"`): the combined line's fields by name, the
 * time in ISO 8601. JSON.stringify escapes quotes and control characters, so a client cannot forge a line.
 */
export interface AccessRecord {
  readonly time: string;
  readonly client_ip: string;
  readonly user: string | null;
  readonly method: string;
  /** Path and query, credential parameters masked. */
  readonly path: string;
  readonly protocol: 'HTTP/1.1';
  readonly status: number;
  readonly bytes: number;
  readonly referer: string | null;
  readonly user_agent: string | null;
  readonly duration_ms: number;
  /** `name:version`; null for servlet requests and calls no API matched. */
  readonly api: string | null;
  readonly application: string | null;
  readonly error_code: number | null;
  /** `gateway` (pass-through ports) or `servlet` (token, admin, health, metrics). */
  readonly port: 'gateway' | 'servlet';
}

const orNull = (v: string): string | null => (v === '' ? null : v);

export function gatewayRecord(r: CallRecord): AccessRecord {
  return {
    time: new Date(r.startedAt).toISOString(), client_ip: r.clientIp, user: r.auth?.user || null, method: r.method,
    path: loggablePath(r.path, r.query), protocol: 'HTTP/1.1', status: r.status, bytes: r.bytes,
    referer: orNull(r.referer), user_agent: orNull(r.userAgent), duration_ms: Math.round(r.durationMs * 1000) / 1000,
    api: r.api ? `${r.api.name}:${r.api.version}` : null, application: r.auth?.application || null,
    error_code: r.errorCode !== 0 ? r.errorCode : null, port: 'gateway',
  };
}

export function servletRecord(r: ServletRecord): AccessRecord {
  return {
    time: new Date(r.startedAt).toISOString(), client_ip: r.clientIp, user: null, method: r.method,
    path: loggablePath(r.path, r.query), protocol: 'HTTP/1.1', status: r.status, bytes: r.bytes,
    referer: orNull(r.referer), user_agent: orNull(r.userAgent), duration_ms: Math.round(r.durationMs * 1000) / 1000,
    api: null, application: null, error_code: null, port: 'servlet',
  };
}

/** [http_access_log]: to <home>/repository/logs/http_access.log, or to the main log (useLogger); combined or JSON. */
export class AccessLog {
  private readonly sink: FileSink | null;

  constructor(readonly view: AccessLogView, private readonly log: Logger) {
    this.sink = view.useLogger ? null : new FileSink(view.file);
  }

  /**
   * Whether a batch of calls may come as its combined lines in one piece (`writeLines(gatewayLines(batch))`,
   * access-log-batch.ts); otherwise one record at a time (JSON, or lines through the main log).
   */
  get takesLines(): boolean {
    return this.sink !== null && this.view.format !== 'json';
  }

  /** Combined lines already encoded (only when `takesLines`); copied, so the caller may use its buffer again. */
  writeLines(bytes: Uint8Array): void {
    this.sink?.writeBytes(bytes);
  }

  gateway(r: CallRecord): void {
    if (this.view.format === 'json') this.record(gatewayRecord(r));
    else this.write(gatewayLine(r));
  }

  servlet(r: ServletRecord): void {
    if (this.view.format === 'json') this.record(servletRecord(r));
    else this.write(servletLine(r));
  }

  private record(rec: AccessRecord): void {
    if (this.sink) this.sink.write(JSON.stringify(rec) + '\n');
    else this.log.info({ component: 'http_access', access: rec }, 'access');
  }

  write(line: string): void {
    if (this.sink) this.sink.write(line);
    else this.log.info({ component: 'http_access' }, line.slice(0, -1));
  }

  reopen(): void {
    this.sink?.reopen();
  }

  close(): Promise<void> {
    return this.sink?.close() ?? Promise.resolve();
  }
}
