import type { HeaderSource, HeaderTarget } from './head-source.js';
import { sameStrings } from './kept-fields.js';

/**
 * The previous backend request head of this io thread, kept with everything it was made from. Steady
 * traffic repeats it: the same client asks the same resource of the same backend with the same fields.
 * Made again, the head costs a concatenation per piece and per field, and a step again when the write
 * flattens the rope (about 1 800 instructions for a GET with two fields, docs/performance.md stop 34);
 * handed out again it is the flat string the last write made of it. The check is a compare per input:
 * pointers for the pieces that are the same objects call after call (the method, the target's parts, the
 * rules), characters for the request's own strings.
 *
 * Every input of buildBackendHead is compared; the arrays are kept as copies (the call owns its arrays).
 */
export class KeptRequestHead {
  private method = '';
  private resourcePath = '';
  private query = '';
  private clientIp = '';
  private secure = false;
  private fields: readonly string[] = [];
  private extra: readonly string[] = [];
  private removed: readonly string[] = [];
  private basePath = '';
  private hostHeader = '';
  private absolutePrefix = '';
  private proxyAuthorizationLine = '';
  private rules: object | null = null;
  private mode = -1;
  private length = -1;
  private text = '';

  /** The head kept for exactly these inputs; null when any differs. */
  find(src: HeaderSource, target: HeaderTarget, rules: object, mode: number, length: number): string | null {
    if (rules !== this.rules || mode !== this.mode || length !== this.length || src.secure !== this.secure) return null;
    if (src.method !== this.method || src.resourcePath !== this.resourcePath || src.query !== this.query || src.clientIp !== this.clientIp) return null;
    if (target.basePath !== this.basePath || target.hostHeader !== this.hostHeader || target.absolutePrefix !== this.absolutePrefix
      || target.proxyAuthorizationLine !== this.proxyAuthorizationLine) return null;
    if (!sameStrings(src.reqHeaders, this.fields) || !sameStrings(src.extraBackendHeaders, this.extra) || !sameStrings(src.removedBackendHeaders, this.removed)) return null;
    return this.text;
  }

  /** Keeps `text` as the head made from these inputs, and returns it. */
  keep(src: HeaderSource, target: HeaderTarget, rules: object, mode: number, length: number, text: string): string {
    this.rules = rules;
    this.mode = mode;
    this.length = length;
    this.secure = src.secure;
    this.method = src.method;
    this.resourcePath = src.resourcePath;
    this.query = src.query;
    this.clientIp = src.clientIp;
    this.basePath = target.basePath;
    this.hostHeader = target.hostHeader;
    this.absolutePrefix = target.absolutePrefix;
    this.proxyAuthorizationLine = target.proxyAuthorizationLine;
    this.fields = src.reqHeaders.slice();
    this.extra = src.extraBackendHeaders.length === 0 ? NONE : src.extraBackendHeaders.slice();
    this.removed = src.removedBackendHeaders.length === 0 ? NONE : src.removedBackendHeaders.slice();
    this.text = text;
    return text;
  }
}

const NONE: readonly string[] = Object.freeze([]);
