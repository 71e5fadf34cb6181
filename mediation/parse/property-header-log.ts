import { badValueCharAt, fieldProblem, isFieldName } from '../../transport/field-values.js';
import type { HeaderAst, LogAst, LogPropertyAst, PropertyAst, PropertyScope, PropertyType, ValueSource } from '../ast.js';
import type { ElementChecks } from './checks.js';
import type { Element } from './source.js';

/** WS-Addressing headers of the reference's default `header` scope: accepted, no effect in Sluice. */
const ADDRESSING_HEADERS = new Set(['to', 'from', 'action', 'faultto', 'replyto', 'relatesto', 'messageid']);
const PROPERTY_TYPES: readonly PropertyType[] = ['STRING', 'INTEGER', 'LONG', 'SHORT', 'DOUBLE', 'FLOAT', 'BOOLEAN'];
const LOG_LEVELS = ['simple', 'custom', 'headers', 'full'] as const;
const LOG_CATEGORIES = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
const SCOPES: Record<string, PropertyScope> = { default: 'default', axis2: 'axis2', transport: 'transport' };
const UNSUPPORTED_SCOPES = new Set(['axis2-client', 'operation', 'registry', 'system', 'analytics', 'env', 'file']);

export function parseProperty(c: ElementChecks, el: Element): PropertyAst {
  const name = c.required(el, 'name');
  const action = (el.attrs['action'] ?? 'set').toLowerCase();
  if (action !== 'set' && action !== 'remove') throw c.error(el.line, el.name, `action must be set or remove, not "${el.attrs['action']}"`);
  const scope = propertyScope(c, el);
  const typeText = (el.attrs['type'] ?? 'STRING').toUpperCase();
  const type = PROPERTY_TYPES.find((t) => t === typeText);
  if (!type) throw c.error(el.line, el.name, `type ${el.attrs['type']} is not supported (${PROPERTY_TYPES.join(', ')})`);
  if (el.attrs['pattern'] !== undefined) throw c.error(el.line, el.name, 'the pattern/group attributes are not supported');
  const child = el.children.find((ch) => ch.local !== 'description');
  if (child) throw c.error(child.line, el.name, 'inline XML values (OM type) are not supported');
  if (scope === 'transport') headerName(c, el, name);
  if (action === 'remove') return { kind: 'property', line: el.line, name, action, scope, type };
  const src = c.valueSource(el, true);
  if (scope === 'transport' || (scope === 'axis2' && (name === 'messageType' || name === 'ContentType'))) headerValue(c, el, name, src);
  if (src.value !== undefined && type !== 'STRING' && type !== 'BOOLEAN' && !isNumberOfType(src.value, type)) {
    throw c.error(el.line, el.name, `value "${src.value}" is not ${type === 'DOUBLE' || type === 'FLOAT' ? 'a number' : 'an integer'} (type ${type})`);
  }
  return { kind: 'property', line: el.line, name, action, scope, type, ...src };
}

function propertyScope(c: ElementChecks, el: Element): PropertyScope {
  const raw = el.attrs['scope'] ?? 'default';
  const scope = SCOPES[raw.toLowerCase()];
  if (scope) return scope;
  const why = UNSUPPORTED_SCOPES.has(raw.toLowerCase()) ? 'is not supported' : 'is unknown';
  throw c.error(el.line, el.name, `scope "${raw}" ${why} (default, axis2, transport)`);
}

/** Whether `text` converts to a property of `type` (INTEGER, LONG, SHORT: whole numbers; DOUBLE, FLOAT). */
export function isNumberOfType(text: string, type: PropertyType): boolean {
  const t = text.trim();
  if (type === 'DOUBLE' || type === 'FLOAT') return t !== '' && Number.isFinite(Number(t));
  return /^[+-]?\d+$/.test(t);
}

export function parseHeader(c: ElementChecks, el: Element): HeaderAst {
  const name = c.required(el, 'name');
  const action = (el.attrs['action'] ?? 'set').toLowerCase();
  if (action !== 'set' && action !== 'remove') throw c.error(el.line, el.name, `action must be set or remove, not "${el.attrs['action']}"`);
  const scopeRaw = (el.attrs['scope'] ?? 'default').toLowerCase();
  if (scopeRaw !== 'default' && scopeRaw !== 'transport') throw c.error(el.line, el.name, `scope "${el.attrs['scope']}" is not supported (transport, default)`);
  const effective = !(scopeRaw === 'default' && ADDRESSING_HEADERS.has(name.toLowerCase()));
  const child = el.children.find((ch) => ch.local !== 'description');
  if (child) throw c.error(child.line, el.name, 'inline XML header blocks (SOAP headers) are not supported');
  headerName(c, el, name);
  if (action === 'remove') return { kind: 'header', line: el.line, name, action, effective };
  const src = c.valueSource(el, true);
  headerValue(c, el, name, src);
  return { kind: 'header', line: el.line, name, action, effective, ...src };
}

/** A header a sequence names must be a token (RFC 9110 §5.6.2): a space or a colon would split the head. */
function headerName(c: ElementChecks, el: Element, name: string): void {
  if (!isFieldName(name)) throw c.error(el.line, el.name, fieldProblem(name, ''), el.column);
}

/**
 * A literal header value is checked now for controls (a raw line break in the attribute); whether a
 * character above U+00FF may go depends on the flow, and is checked, like an expression's result, each time
 * the value is set (mediation/message.ts HeaderMap).
 */
function headerValue(c: ElementChecks, el: Element, name: string, src: ValueSource): void {
  if (src.value !== undefined && badValueCharAt(src.value, true) >= 0) throw c.error(el.line, el.name, fieldProblem(name, src.value, true), el.column);
}

export function parseLog(c: ElementChecks, el: Element): LogAst {
  const levelText = (el.attrs['level'] ?? 'simple').toLowerCase();
  const level = LOG_LEVELS.find((l) => l === levelText);
  if (!level) throw c.error(el.line, el.name, `level must be one of ${LOG_LEVELS.join(', ')}, not "${el.attrs['level']}"`);
  const categoryText = (el.attrs['category'] ?? 'INFO').toUpperCase();
  const category = LOG_CATEGORIES.find((cat) => cat === categoryText);
  if (!category) throw c.error(el.line, el.name, `category must be one of ${LOG_CATEGORIES.join(', ')}, not "${el.attrs['category']}"`);
  const properties: LogPropertyAst[] = [];
  for (const ch of el.children) {
    if (ch.local === 'description') continue;
    if (ch.local !== 'property') throw c.error(ch.line, ch.name, `unexpected <${ch.name}> in log (property)`);
    properties.push({ name: c.required(ch, 'name'), ...c.valueSource(ch, true) });
  }
  return { kind: 'log', line: el.line, level, category, separator: el.attrs['separator'] ?? ', ', properties };
}
