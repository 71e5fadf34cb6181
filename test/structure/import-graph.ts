import fs from 'node:fs';
import path from 'node:path';

/** The source folders whose structure the rules cover (bench/ and test/ sit on top and are not checked). */
export const SOURCE_ROOTS = ['errors', 'conf', 'transport', 'mediation', 'engine'] as const;

export interface SourceFile {
  /** Path from the project root, with forward slashes (`engine/gateway/message-context.ts`). */
  readonly file: string;
  readonly text: string;
  readonly lines: number;
  /** Project files it imports (type-only imports included: a cycle of types is a cycle of ideas). */
  readonly imports: readonly string[];
}

const IMPORT = /(?:^|[;\s])(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
}

/** Every source file under SOURCE_ROOTS with its relative imports resolved to project paths. */
export function readSources(root: string): SourceFile[] {
  const files: string[] = [];
  for (const r of SOURCE_ROOTS) walk(path.join(root, r), files);
  return files.sort().map((abs) => {
    const file = path.relative(root, abs).split(path.sep).join('/');
    const text = fs.readFileSync(abs, 'utf8');
    const imports = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('.')) continue;
      imports.add(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
    }
    return { file, text, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), imports: [...imports] };
  });
}

/** Strongly connected components with more than one file (Tarjan): each is a set of files that import each other. */
export function cycles(files: readonly SourceFile[]): string[][] {
  const edges = new Map(files.map((f) => [f.file, f.imports.filter((i) => i !== f.file)]));
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

/**
 * The code of a file: comments and the text of string literals blanked (a template's `${...}` is kept), so
 * that a rule about code does not trip on prose. A scanner, not a parser: a regular expression literal
 * holding a quote can fool it, which the rules below tolerate (they look for numbers).
 */
export function codeOnly(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (c === '/' && n === '/') { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (c === '/' && n === '*') { const end = text.indexOf('*/', i + 2); i = end < 0 ? text.length : end + 2; out += ' '; continue; }
    if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      out += c;
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\') { j += 2; continue; }
        if (c === '`' && text[j] === '$' && text[j + 1] === '{') {
          // Keep the expression: it is code (a nested template in it is rare and only blanks more).
          let depth = 0;
          const start = j;
          for (; j < text.length; j++) { if (text[j] === '{') depth++; else if (text[j] === '}' && --depth === 0) break; }
          out += text.slice(start, j + 1);
          j++;
          continue;
        }
        if (text[j] === '\n') out += '\n';
        j++;
      }
      out += c;
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}
