import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { BodyAbortedError, BodyMalformedError, BodyTooLargeError, UnsupportedMediaTypeError } from './errors.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BAD_PERCENT = /%(?![0-9a-fA-F]{2})/;

/**
 * One request on a servlet port, with lazy body readers. The body is read once, bounded by the route's
 * limit (a Content-Length above it is refused before a byte is read), and cached for the other readers.
 */
export class ServletRequest {
  readonly method: string;
  /** Decoded path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly secure: boolean;
  readonly remoteAddress: string;
  private bodyPromise: Promise<Buffer> | undefined;

  constructor(
    readonly raw: IncomingMessage,
    /** UUID of this request, for logs and the X-Sluice-TraceId header. */
    readonly traceId: string,
    private readonly maxBodySize: number,
  ) {
    this.method = (raw.method ?? 'GET').toUpperCase();
    const url = raw.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    let path: string;
    try { path = decodeURIComponent(rawPath); } catch { path = rawPath; }
    this.path = path;
    this.query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    this.headers = raw.headers;
    this.secure = Boolean((raw.socket as TLSSocket).encrypted);
    this.remoteAddress = raw.socket.remoteAddress ?? '';
  }

  header(name: string): string | undefined {
    const v = this.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }

  /** The media type of the body, lower case, without parameters (`application/json`). */
  get mediaType(): string | undefined {
    const ct = this.header('content-type');
    if (!ct) return undefined;
    return ct.split(';')[0]!.trim().toLowerCase() || undefined;
  }

  /** Whether the request carries a body at all (Content-Length > 0 or chunked). */
  get hasBody(): boolean {
    const len = this.header('content-length');
    if (len !== undefined) return Number(len) > 0;
    return this.header('transfer-encoding') !== undefined;
  }

  body(): Promise<Buffer> {
    this.bodyPromise ??= readBody(this.raw, this.maxBodySize);
    return this.bodyPromise;
  }

  async text(): Promise<string> {
    const buf = await this.body();
    try { return UTF8.decode(buf); } catch { throw new BodyMalformedError('the request body is not valid UTF-8'); }
  }

  /** The body as `application/x-www-form-urlencoded`; other content types are refused (415). */
  async form(): Promise<URLSearchParams> {
    requireMediaType(this, 'application/x-www-form-urlencoded');
    const text = await this.text();
    if (BAD_PERCENT.test(text)) throw new BodyMalformedError('malformed form body: a "%" is not followed by two hex digits');
    try {
      // URLSearchParams decodes leniently; decodeURIComponent finds invalid UTF-8 sequences (%C3%28).
      decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      throw new BodyMalformedError('malformed form body: percent-encoding is not valid UTF-8');
    }
    return new URLSearchParams(text);
  }

  /** The body as JSON; other content types are refused (415). */
  async json(): Promise<unknown> {
    const mt = this.mediaType;
    if (mt === undefined || !(mt === 'application/json' || mt.endsWith('+json'))) throw new UnsupportedMediaTypeError(this.header('content-type'), 'application/json');
    const text = await this.text();
    try { return JSON.parse(text); } catch (err) { throw new BodyMalformedError(`malformed JSON body: ${(err as Error).message}`); }
  }
}

export function requireMediaType(req: ServletRequest, want: string): void {
  if (req.mediaType !== want) throw new UnsupportedMediaTypeError(req.header('content-type'), want);
}

/** Reads a request body up to `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | undefined, value?: Buffer): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onClose);
      if (err) reject(err); else resolve(value!);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading: the answer carries Connection: close and the socket is dropped after it.
        req.pause();
        finish(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (err: Error): void => finish(new BodyAbortedError(`the request body could not be read: ${err.message}`));
    const onAborted = (): void => finish(new BodyAbortedError());
    const onClose = (): void => { if (!req.complete) finish(new BodyAbortedError()); };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onClose);
    if (req.complete && req.readableEnded) finish(undefined, Buffer.alloc(0));
  });
}
