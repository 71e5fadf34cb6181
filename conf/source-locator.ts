/**
 * Finds the line of a key in TOML source text, so that errors found after parsing (a wrong type, an unknown
 * key) can name the line. smol-toml gives positions only for syntax errors; this scanner follows table
 * headers and key lines, which is what operators' files are made of.
 */
const HEADER = /^\s*(\[\[?)\s*([^\]#]+?)\s*\]\]?\s*(?:#.*)?$/;
const KEY_PART = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*/;

/** Dotted TOML key text -> its segments, quotes removed. Returns undefined when the line holds no key. */
function keySegments(text: string): { segments: string[]; rest: string } | undefined {
  const segments: string[] = [];
  let rest = text;
  for (;;) {
    const m = KEY_PART.exec(rest);
    if (!m) return undefined;
    const raw = m[1]!;
    segments.push(raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw);
    rest = rest.slice(m[0].length);
    if (rest.startsWith('.')) { rest = rest.slice(1); continue; }
    return { segments, rest };
  }
}

export class SourceLocator {
  private readonly lines = new Map<string, number[]>();

  constructor(source: string) {
    /** Arrays of tables seen so far, by concrete path (`registry_handler[1].nested_property`), with their size. */
    const arrayCounts = new Map<string, number>();
    /** Segments -> concrete path: a segment naming an array of tables stands for its last element, as in TOML. */
    const concrete = (segments: readonly string[]): string => {
      let p = '';
      for (const s of segments) {
        p = p ? `${p}.${s}` : s;
        const n = arrayCounts.get(p);
        if (n !== undefined) p = `${p}[${n - 1}]`;
      }
      return p;
    };
    let table = '';
    let inMultiline: '"""' | "'''" | null = null;
    const text = source.split(/\r?\n/);
    for (let i = 0; i < text.length; i++) {
      const line = text[i]!;
      if (inMultiline) {
        if (line.includes(inMultiline)) inMultiline = null;
        continue;
      }
      const h = HEADER.exec(line);
      if (h) {
        const parsed = keySegments(h[2]!);
        if (!parsed) continue;
        if (h[1] === '[[') {
          const parent = concrete(parsed.segments.slice(0, -1));
          const base = parent ? `${parent}.${parsed.segments.at(-1)!}` : parsed.segments.at(-1)!;
          const n = arrayCounts.get(base) ?? 0;
          arrayCounts.set(base, n + 1);
          table = `${base}[${n}]`;
        } else {
          table = concrete(parsed.segments);
        }
        this.remember(table, i + 1);
        continue;
      }
      const k = keySegments(line);
      if (!k || !k.rest.startsWith('=')) continue;
      const key = k.segments.join('.');
      this.remember(table ? `${table}.${key}` : key, i + 1);
      const value = k.rest.slice(1);
      const triple = value.includes('"""') ? '"""' : value.includes("'''") ? "'''" : null;
      if (triple && value.split(triple).length === 2) inMultiline = triple;
    }
  }

  private remember(path: string, line: number): void {
    const seen = this.lines.get(path);
    if (seen) seen.push(line);
    else this.lines.set(path, [line]);
  }

  /**
   * The line of a path such as `passthru_http.http.socket.timeout` or `apim.gateway.environment[0].name`;
   * falls back to the closest enclosing key or table that the source names.
   */
  lineOf(path: string): number | undefined {
    let p = path;
    for (;;) {
      const hit = this.lines.get(p);
      if (hit !== undefined) return hit[0];
      const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      if (cut <= 0) return undefined;
      p = p.slice(0, cut);
    }
  }

  /** Every line that writes exactly this path (a key written twice, once dotted and once quoted, has two). */
  linesOf(path: string): number[] {
    return [...(this.lines.get(path) ?? [])];
  }
}
