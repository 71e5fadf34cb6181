/**
 * What a header field may carry (RFC 9110 §5.1, §5.5, §5.6.2), for names and values Sluice writes itself:
 * values that mediation built from a message, headers the phases add. What llhttp and uWebSockets.js parsed
 * is theirs to refuse; what Sluice makes is checked here before a head is written.
 *
 * Controls but HTAB (CR, LF and NUL among them) and DEL are never allowed. Heads are written byte per
 * character (latin1), both ways, because llhttp decodes every head it reads the same way: a character above
 * U+00FF would lose its high byte, U+010A becoming LF (Node.js CVE-2018-12116), so it is refused. `wide`
 * (any character) is only for checks that judge controls alone (a literal at deploy time, judged again when
 * it is set).
 */

/** RFC 9110 §5.6.2 tchar, by character code (0-127). */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;

/** A field name: one or more tchar. */
export function isFieldName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return true;
}

/** A header name checked once (where it is made, usually a phase's constant): `fieldName` is the only way to one. */
export type FieldName = string & { readonly __checkedFieldName: true };

/** `name` as a FieldName; throws when it is not one (a programming error, found at load). */
export function fieldName(name: string): FieldName {
  if (!isFieldName(name)) throw new Error(`"${printable(name)}" is not a header name (RFC 9110 token characters only)`);
  return name as FieldName;
}

/**
 * Where a value first holds a character it may not: a control other than HTAB (CR, LF and NUL among them),
 * DEL, or (unless `wide`) anything above U+00FF. -1 when the value is clean. SP, VCHAR and obs-text pass.
 */
export function badValueCharAt(value: string, wide = false): number {
  const top = wide ? 0x10ffff : 0xff;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 ? c !== 0x09 : c === 0x7f || c > top) return i;
  }
  return -1;
}

/** Index of the first name in a flat [name, value, ...] list whose name or value is not allowed; -1 if none. */
export function firstUnsafeField(flat: readonly string[], wide = false): number {
  for (let i = 0; i + 1 < flat.length; i += 2) {
    if (!isFieldName(flat[i]!) || badValueCharAt(flat[i + 1]!, wide) >= 0) return i;
  }
  return -1;
}

/** The same over [name, value] pairs. */
export function firstUnsafePair(pairs: readonly (readonly [string, string])[], wide = false): number {
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i]!;
    if (!isFieldName(p[0]) || badValueCharAt(p[1], wide) >= 0) return i;
  }
  return -1;
}

/** Why a name or value is refused, for logs: the character's code point and place, never the value itself. */
export function fieldProblem(name: string, value: string, wide = false): string {
  if (!isFieldName(name)) return `"${printable(name)}" is not a header name (RFC 9110 token characters only)`;
  const at = badValueCharAt(value, wide);
  if (at < 0) return '';
  const code = value.charCodeAt(at);
  return `the value of ${name} holds U+${code.toString(16).toUpperCase().padStart(4, '0')} at ${at} (a header value may not hold CR, LF, NUL, `
    + `other controls but HTAB, or DEL${wide ? '' : ', nor, towards a client, a character above U+00FF'})`;
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]/g;

function printable(s: string): string {
  return s.slice(0, 64).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
