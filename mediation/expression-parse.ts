/**
 * The expression language of sequences, parsed at deploy time (never per call). Supported, as operators write
 * them in the reference system:
 *
 *   get-property('NAME')                 default scope, then the call's facts (api.ut.api, SYSTEM_DATE, ...)
 *   get-property('default'|'axis2'|'transport', 'NAME')
 *   get-property('SYSTEM_DATE', 'yyyy-MM-dd')
 *   $ctx:NAME   $axis2:NAME   $trp:Header-Name
 *   json-eval($.a.b)   json-eval($.a[0].b)   json-eval($['a b'])   json-eval($)
 *   'literal'   "literal"   42
 *   concat(e, e, ...)   boolean(e)   not(e)   true()   false()   e = e   e != e   e and e   e or e   ( e )
 *
 * Anything else is a SequenceDeployError naming the expression.
 */
import type { ExprAst, PropertyScope } from './ast.js';

/** Thrown by the parser; the caller turns it into a SequenceDeployError with the location. */
export class ExpressionError extends Error {
  constructor(readonly expression: string, readonly why: string) {
    super(`unsupported expression "${expression}": ${why}`);
  }
}

const VARIABLE_SCOPES: Record<string, PropertyScope> = { ctx: 'default', axis2: 'axis2', trp: 'transport' };
const GET_PROPERTY_SCOPES: Record<string, PropertyScope> = { default: 'default', axis2: 'axis2', transport: 'transport' };
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_.\-]/;

export function parseExpression(text: string): ExprAst {
  const p = new Parser(text);
  const e = p.parseOr();
  p.skipSpace();
  if (!p.atEnd()) p.fail(`unexpected "${text.slice(p.pos)}"`);
  return e;
}

/** A bare JSONPath as written in `<arg evaluator="json" expression="$.a.b"/>`. */
export function parseJsonPath(text: string, whole = text): (string | number)[] {
  const src = text.trim();
  if (src[0] !== '$') throw new ExpressionError(whole, 'a JSON path starts with $');
  const steps: (string | number)[] = [];
  let i = 1;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '.') {
      if (src[i + 1] === '.') throw new ExpressionError(whole, 'deep scan (..) is not supported');
      let j = i + 1;
      while (j < src.length && src[j] !== '.' && src[j] !== '[') j++;
      const name = src.slice(i + 1, j).trim();
      if (name === '') throw new ExpressionError(whole, 'empty name after "."');
      if (name === '*') throw new ExpressionError(whole, 'wildcards are not supported');
      if (!/^[^\s()'"?@,:*]+$/.test(name)) throw new ExpressionError(whole, `"${name}" is not a plain member name (use ['...'])`);
      steps.push(name);
      i = j;
    } else if (c === '[') {
      const close = findBracketEnd(src, i);
      if (close < 0) throw new ExpressionError(whole, 'unclosed [');
      const inner = src.slice(i + 1, close).trim();
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inner);
      if (quoted) steps.push(quoted[1] ?? quoted[2]!);
      else if (/^\d+$/.test(inner)) steps.push(Number(inner));
      else throw new ExpressionError(whole, `"[${inner}]" is not supported (only [n] and ['name'])`);
      i = close + 1;
    } else {
      throw new ExpressionError(whole, `unexpected "${src.slice(i)}" in the JSON path`);
    }
  }
  return steps;
}

function findBracketEnd(s: string, open: number): number {
  let quote = '';
  for (let i = open + 1; i < s.length; i++) {
    const c = s[i]!;
    if (quote) { if (c === quote) quote = ''; continue; }
    if (c === '\'' || c === '"') quote = c;
    else if (c === ']') return i;
  }
  return -1;
}

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(why: string): never { throw new ExpressionError(this.text, why); }
  atEnd(): boolean { return this.pos >= this.text.length; }
  skipSpace(): void { while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++; }
  peek(): string { this.skipSpace(); return this.text[this.pos] ?? ''; }

  /** The next word if it is `word` followed by a non-name character (keywords `and`, `or`). */
  private keyword(word: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(word, this.pos)) return false;
    const after = this.text[this.pos + word.length] ?? '';
    if (NAME_CHAR.test(after) || after === '(' || after === ':') return false;
    this.pos += word.length;
    return true;
  }

  parseOr(): ExprAst {
    let a = this.parseAnd();
    while (this.keyword('or')) a = { k: 'or', a, b: this.parseAnd() };
    return a;
  }

  private parseAnd(): ExprAst {
    let a = this.parseCmp();
    while (this.keyword('and')) a = { k: 'and', a, b: this.parseCmp() };
    return a;
  }

  private parseCmp(): ExprAst {
    const a = this.parsePrimary();
    const c = this.peek();
    if (c === '=') { this.pos++; return { k: 'cmp', op: '=', a, b: this.parsePrimary() }; }
    if (c === '!' && this.text[this.pos + 1] === '=') { this.pos += 2; return { k: 'cmp', op: '!=', a, b: this.parsePrimary() }; }
    if (c === '<' || c === '>') this.fail('ordering comparisons (<, >) are not supported');
    return a;
  }

  private parsePrimary(): ExprAst {
    const c = this.peek();
    if (c === '') this.fail('expression ends too early');
    if (c === '\'' || c === '"') return { k: 'lit', v: this.readString() };
    if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(this.text[this.pos + 1] ?? ''))) {
      const m = /^-?\d+(\.\d+)?/.exec(this.text.slice(this.pos))!;
      this.pos += m[0].length;
      return { k: 'num', v: Number(m[0]) };
    }
    if (c === '(') {
      this.pos++;
      const e = this.parseOr();
      this.expect(')');
      return e;
    }
    if (c === '$') return this.parseVariable();
    if (NAME_START.test(c)) return this.parseFunction();
    return this.fail(`unexpected "${this.text.slice(this.pos)}"`);
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected "${ch}"${this.atEnd() ? ' at the end' : ` before "${this.text.slice(this.pos)}"`}`);
    this.pos++;
  }

  private readString(): string {
    const q = this.text[this.pos]!;
    const end = this.text.indexOf(q, this.pos + 1);
    if (end < 0) this.fail('unterminated string literal');
    const v = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return v;
  }

  private readName(): string {
    const start = this.pos;
    while (this.pos < this.text.length && NAME_CHAR.test(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private parseVariable(): ExprAst {
    this.pos++; // $
    const next = this.text[this.pos] ?? '';
    if (next === '.' || next === '[' || next === '' || /\s/.test(next)) {
      this.fail('a JSON path must be written json-eval($...) (or use evaluator="json" on a payloadFactory arg)');
    }
    const prefix = this.readName();
    if (this.text[this.pos] !== ':') this.fail(`$${prefix} is not supported (use $ctx:, $axis2: or $trp:)`);
    this.pos++;
    const scope = VARIABLE_SCOPES[prefix];
    if (!scope) this.fail(`$${prefix}: is not supported (use $ctx:, $axis2: or $trp:)`);
    const name = this.readName();
    if (!name) this.fail(`a property name must follow $${prefix}:`);
    return { k: 'prop', scope, name };
  }

  private parseFunction(): ExprAst {
    let name = this.readName();
    if (this.text[this.pos] === ':' && (name === 'fn' || name === 'syn')) { this.pos++; name = this.readName(); }
    if (this.peek() !== '(') {
      if (name === 'and' || name === 'or') this.fail(`"${name}" needs an operand before it`);
      this.fail(`"${name}" is not supported (XPath paths over the message body are not; use json-eval or a property)`);
    }
    this.pos++; // (
    if (name === 'json-eval') return this.parseJsonEval();
    const args: ExprAst[] = [];
    if (this.peek() !== ')') {
      for (;;) {
        args.push(this.parseOr());
        if (this.peek() === ',') { this.pos++; continue; }
        break;
      }
    }
    this.expect(')');
    switch (name) {
      case 'get-property': return this.getProperty(args);
      case 'concat':
        if (args.length === 0) this.fail('concat() needs at least one argument');
        return { k: 'concat', args };
      case 'boolean':
        if (args.length !== 1) this.fail('boolean() takes one argument');
        return { k: 'boolean', e: args[0]! };
      case 'not':
        if (args.length !== 1) this.fail('not() takes one argument');
        return { k: 'not', e: args[0]! };
      case 'string':
        if (args.length !== 1) this.fail('string() takes one argument');
        return args[0]!;
      case 'true':
      case 'false':
        if (args.length !== 0) this.fail(`${name}() takes no argument`);
        return { k: 'const', v: name === 'true' };
      default:
        return this.fail(`function ${name}() is not supported`);
    }
  }

  private getProperty(args: ExprAst[]): ExprAst {
    const lits = args.map((a) => (a.k === 'lit' ? a.v : undefined));
    if (lits.some((l) => l === undefined)) this.fail('get-property() takes quoted names only');
    if (args.length === 1) return { k: 'prop', scope: 'default', name: lits[0]! };
    if (args.length === 2) {
      const first = lits[0]!;
      if (first === 'SYSTEM_DATE') return { k: 'date', format: lits[1]! };
      const scope = GET_PROPERTY_SCOPES[first];
      if (!scope) this.fail(`scope '${first}' is not supported (default, axis2, transport)`);
      return { k: 'prop', scope, name: lits[1]! };
    }
    return this.fail('get-property() takes one or two arguments');
  }

  private parseJsonEval(): ExprAst {
    // The path is raw text up to the matching ")" (brackets and quotes may hold parentheses).
    const start = this.pos;
    let depth = 0;
    let quote = '';
    for (; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos]!;
      if (quote) { if (c === quote) quote = ''; continue; }
      if (c === '\'' || c === '"') quote = c;
      else if (c === '(' || c === '[') depth++;
      else if (c === ']') depth--;
      else if (c === ')') { if (depth === 0) break; depth--; }
    }
    if (this.pos >= this.text.length) this.fail('json-eval( is not closed');
    const src = this.text.slice(start, this.pos).trim();
    this.pos++; // )
    return { k: 'json', path: parseJsonPath(src, this.text), src };
  }
}

/** Whether an expression yields a boolean (a comparison, not(), ...) rather than a string. */
export function isBooleanExpr(e: ExprAst): boolean {
  return e.k === 'boolean' || e.k === 'not' || e.k === 'cmp' || e.k === 'and' || e.k === 'or' || e.k === 'const';
}

/** Whether evaluating the expression reads the message body (a content-aware mediator). */
export function readsBody(e: ExprAst): boolean {
  switch (e.k) {
    case 'json': return true;
    case 'concat': return e.args.some(readsBody);
    case 'boolean': case 'not': return readsBody(e.e);
    case 'cmp': case 'and': case 'or': return readsBody(e.a) || readsBody(e.b);
    default: return false;
  }
}

/**
 * A filter / switch regex as the reference applies it: Java's Matcher.matches(), a whole-string match.
 * A leading Java inline flag `(?i)` (or `(?s)`, `(?m)`) becomes the JS flag.
 */
export function wholeMatchRegex(regex: string): RegExp {
  let flags = '';
  let body = regex;
  const inline = /^\(\?([ism]+)\)/.exec(body);
  if (inline) {
    flags = [...new Set(inline[1]!)].join('');
    body = body.slice(inline[0].length);
  }
  return new RegExp(`^(?:${body})$`, flags);
}
