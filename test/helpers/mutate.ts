/**
 * One seeded mutation of a message's bytes for the fuzz tests: one to three edits, each an insertion of an
 * `interesting` piece, a deletion of one to three chars, a random byte, a copy of the second line, or an
 * upper-cased char. The same `rnd` sequence gives the same mutation, so a failing case replays from its seed.
 */
export function mutate(src: string, rnd: () => number, interesting: readonly string[]): string {
  let s = src;
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(rnd() * (s.length + 1));
    const op = Math.floor(rnd() * 5);
    if (op === 0) s = s.slice(0, at) + interesting[Math.floor(rnd() * interesting.length)] + s.slice(at);
    else if (op === 1) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rnd() * 3));
    else if (op === 2) s = s.slice(0, at) + String.fromCharCode(Math.floor(rnd() * 256)) + s.slice(at + 1);
    else if (op === 3) { const line = s.slice(s.indexOf('\r\n') + 2).split('\r\n')[0] ?? ''; s = s.slice(0, at) + line + '\r\n' + s.slice(at); }
    else s = s.slice(0, at) + s.slice(at, at + 1).toUpperCase() + s.slice(at + 1);
  }
  return s;
}
