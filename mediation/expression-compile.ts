/**
 * Deploy-time ExprAst -> closures over a MediationMessage. Names are resolved once here (fact readers,
 * lower-cased header names, date patterns), so a call evaluates without parsing or looking anything up by
 * text beyond one Map get.
 */
import type { ExprAst } from './ast.js';
import { isBooleanExpr } from './expression-parse.js';
import { FACT_AXIS2, FACT_PROPERTIES, type MediationMessage, type PropertyValue } from './message.js';

export type StringFn = (m: MediationMessage) => string | undefined;
export type BoolFn = (m: MediationMessage) => boolean;

function text(v: PropertyValue | undefined): string | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? v : String(v);
}

/** Compiles an expression for its string value (booleans give 'true' / 'false'); undefined: no value. */
export function compileString(e: ExprAst): StringFn {
  if (isBooleanExpr(e)) {
    const b = compileBool(e);
    return (m) => (b(m) ? 'true' : 'false');
  }
  switch (e.k) {
    case 'lit': { const v = e.v; return () => v; }
    case 'num': { const v = String(e.v); return () => v; }
    case 'prop': return compileProperty(e.scope, e.name);
    case 'date': { const fmt = compileDateFormat(e.format); return () => fmt(new Date()); }
    case 'json': return compileJsonPath(e.path);
    case 'concat': {
      const parts = e.args.map(compileString);
      return (m) => {
        let s = '';
        for (let i = 0; i < parts.length; i++) s += parts[i]!(m) ?? '';
        return s;
      };
    }
    default: throw new Error(`unreachable: ${e.k}`);
  }
}

/** Compiles an expression for its XPath boolean value (a string is true when not empty). */
export function compileBool(e: ExprAst): BoolFn {
  switch (e.k) {
    case 'const': { const v = e.v; return () => v; }
    case 'boolean': return compileBool(e.e);
    case 'not': { const inner = compileBool(e.e); return (m) => !inner(m); }
    case 'and': { const a = compileBool(e.a); const b = compileBool(e.b); return (m) => a(m) && b(m); }
    case 'or': { const a = compileBool(e.a); const b = compileBool(e.b); return (m) => a(m) || b(m); }
    case 'num': { const v = e.v !== 0 && !Number.isNaN(e.v); return () => v; }
    case 'cmp': return compileComparison(e.op, e.a, e.b);
    default: {
      const s = compileString(e);
      return (m) => { const v = s(m); return v !== undefined && v !== ''; };
    }
  }
}

function compileComparison(op: '=' | '!=', a: ExprAst, b: ExprAst): BoolFn {
  let eq: BoolFn;
  if (isBooleanExpr(a) || isBooleanExpr(b)) {
    const fa = compileBool(a);
    const fb = compileBool(b);
    eq = (m) => fa(m) === fb(m);
  } else if (a.k === 'num' || b.k === 'num') {
    const fa = compileString(a);
    const fb = compileString(b);
    eq = (m) => Number(fa(m) ?? NaN) === Number(fb(m) ?? NaN);
  } else {
    const fa = compileString(a);
    const fb = compileString(b);
    eq = (m) => (fa(m) ?? '') === (fb(m) ?? '');
  }
  return op === '=' ? eq : (m) => !eq(m);
}

function compileProperty(scope: 'default' | 'axis2' | 'transport', name: string): StringFn {
  if (scope === 'transport') {
    const lower = name.toLowerCase();
    return (m) => m.headers.getLower(lower);
  }
  if (scope === 'axis2') {
    const fact = FACT_AXIS2.get(name);
    if (fact) return (m) => text(m.axis2.get(name)) ?? fact(m.facts);
    return (m) => text(m.axis2.get(name));
  }
  switch (name) {
    case 'SYSTEM_DATE': return (m) => text(m.properties.get(name)) ?? new Date().toISOString();
    case 'SYSTEM_TIME': return (m) => text(m.properties.get(name)) ?? String(Date.now());
    case 'MessageID': return (m) => text(m.properties.get(name)) ?? m.messageId;
    default: {
      const fact = FACT_PROPERTIES.get(name);
      if (fact) return (m) => text(m.properties.get(name)) ?? fact(m.facts);
      return (m) => text(m.properties.get(name));
    }
  }
}

/** The JSON text of a json-eval result: strings as they are, objects and arrays as JSON. */
export function jsonResultText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function compileJsonPath(path: readonly (string | number)[]): StringFn {
  const steps = path.slice();
  return (m) => {
    let v: unknown = m.jsonBody();
    for (let i = 0; i < steps.length && v !== undefined; i++) {
      const s = steps[i]!;
      if (v === null || typeof v !== 'object') return undefined;
      if (typeof s === 'number') v = Array.isArray(v) ? v[s] : undefined;
      else v = Array.isArray(v) ? undefined : Object.hasOwn(v, s) ? (v as Record<string, unknown>)[s] : undefined;
    }
    return jsonResultText(v);
  };
}

// ---- SimpleDateFormat subset for get-property('SYSTEM_DATE', 'pattern') ----

type DatePart = (d: Date) => string;
const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const DATE_TOKENS: Record<string, DatePart> = {
  yyyy: (d) => pad(d.getFullYear(), 4),
  yy: (d) => pad(d.getFullYear() % 100, 2),
  MM: (d) => pad(d.getMonth() + 1, 2),
  M: (d) => String(d.getMonth() + 1),
  dd: (d) => pad(d.getDate(), 2),
  d: (d) => String(d.getDate()),
  HH: (d) => pad(d.getHours(), 2),
  H: (d) => String(d.getHours()),
  hh: (d) => pad(d.getHours() % 12 || 12, 2),
  h: (d) => String(d.getHours() % 12 || 12),
  mm: (d) => pad(d.getMinutes(), 2),
  m: (d) => String(d.getMinutes()),
  ss: (d) => pad(d.getSeconds(), 2),
  s: (d) => String(d.getSeconds()),
  SSS: (d) => pad(d.getMilliseconds(), 3),
  a: (d) => (d.getHours() < 12 ? 'AM' : 'PM'),
  Z: (d) => offset(d, ''),
  XXX: (d) => offset(d, ':'),
};

function offset(d: Date, sep: string): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  return `${sign}${pad(Math.floor(abs / 60), 2)}${sep}${pad(abs % 60, 2)}`;
}

export function compileDateFormat(pattern: string): (d: Date) => string {
  const parts: DatePart[] = [];
  const re = /yyyy|yy|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|XXX|Z|'([^']*)'|[^yMdHhmsSaXZ']+/g;
  for (let t = re.exec(pattern); t; t = re.exec(pattern)) {
    const tok = t[0];
    const fn = DATE_TOKENS[tok];
    if (fn) parts.push(fn);
    else { const lit = t[1] ?? tok; parts.push(() => lit); }
  }
  return (d) => {
    let s = '';
    for (const p of parts) s += p(d);
    return s;
  };
}
