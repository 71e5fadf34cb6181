import type { ExprAst, MediatorAst, SequenceAst, ValueSource } from './ast.js';
import { readsBody } from './expression-parse.js';

function valueReads(v: ValueSource | undefined): boolean {
  return v?.expr !== undefined && readsBody(v.expr);
}

function exprReads(e: ExprAst | undefined): boolean {
  return e !== undefined && readsBody(e);
}

/**
 * Whether a sequence reads or replaces the message body (a content-aware sequence): then the gateway
 * must hold that message's body whole; otherwise the body stays streamed past the sequence.
 * Follows `sequence key` references (each sequence once).
 */
export function touchesBody(name: string, asts: ReadonlyMap<string, SequenceAst>, seen: Set<string> = new Set()): boolean {
  if (seen.has(name)) return false;
  seen.add(name);
  const ast = asts.get(name);
  if (ast === undefined) return false;
  const walk = (list: readonly MediatorAst[]): boolean => list.some((m) => {
    switch (m.kind) {
      case 'payloadFactory': case 'makefault': return true;
      case 'property':
        return valueReads(m) || (m.scope === 'axis2' && (m.name === 'messageType' || m.name === 'ContentType'));
      case 'header': return valueReads(m);
      case 'log': return m.level === 'full' || m.properties.some(valueReads);
      case 'filter': return exprReads(m.source) || exprReads(m.condition) || walk(m.then) || walk(m.else);
      case 'switch': return exprReads(m.source) || m.cases.some((c) => walk(c.body)) || walk(m.default);
      case 'sequence': return touchesBody(m.key, asts, seen);
      case 'in': case 'out': return walk(m.body);
      default: return false;
    }
  });
  return walk(ast.body) || (ast.onError !== null && touchesBody(ast.onError, asts, seen));
}
