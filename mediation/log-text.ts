/**
 * What a log mediator writes, made safe for a log line: values from a message (a header, a body field, the
 * path) may hold CR or LF, which would forge a line in a text log, or ESC, which drives the terminal that
 * shows it. Every control character (C0, DEL, C1) and the Unicode line and paragraph separators are written
 * escaped (\n, \r, \t, \u001b); everything else stays as it is. Secrets are masked by name
 * (transport/sensitive-fields.ts).
 */
import type { ExprAst } from './ast.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `s` with its control characters escaped; `s` itself when it has none (the usual case: no copy). */
export function escapeLogText(s: string): string {
  if (!CONTROL.test(s)) return s;
  return s.replace(CONTROL_ALL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether an expression reads one of the `masked` transport headers (lower-case names), anywhere in it. */
export function readsMaskedHeader(e: ExprAst, masked: ReadonlySet<string>): boolean {
  switch (e.k) {
    case 'prop': return e.scope === 'transport' && masked.has(e.name.toLowerCase());
    case 'concat': return e.args.some((x) => readsMaskedHeader(x, masked));
    case 'boolean': case 'not': return readsMaskedHeader(e.e, masked);
    case 'cmp': case 'and': case 'or': return readsMaskedHeader(e.a, masked) || readsMaskedHeader(e.b, masked);
    default: return false;
  }
}
