import type { ExprAst, PayloadArgAst, PayloadFactoryAst } from '../ast.js';
import { ExpressionError, parseJsonPath } from '../expression-parse.js';
import type { ElementChecks } from './checks.js';
import type { Element } from './source.js';

/** `<payloadFactory>`: the format cut at its `$n` slots, each slot naming one of the `<arg>`s. */
export function parsePayloadFactory(c: ElementChecks, el: Element): PayloadFactoryAst {
  const mediaType = (el.attrs['media-type'] ?? 'xml').toLowerCase();
  if (mediaType !== 'json' && mediaType !== 'xml' && mediaType !== 'text') {
    throw c.error(el.line, el.name, `media-type must be json, xml or text, not "${el.attrs['media-type']}"`);
  }
  if (el.attrs['template-type'] && el.attrs['template-type'].toLowerCase() !== 'default') {
    throw c.error(el.line, el.name, `template-type ${el.attrs['template-type']} is not supported`);
  }
  const formats = el.children.filter((ch) => ch.local === 'format');
  if (formats.length !== 1) throw c.error(el.line, el.name, formats.length ? 'only one <format> is allowed' : 'missing required child <format>');
  const format = formats[0]!;
  if (format.attrs['key'] !== undefined) throw c.error(format.line, 'format', 'formats from the registry (key) are not supported; write the format inline');
  let text: string;
  if (mediaType === 'xml') {
    text = format.inner.trim();
    if (text === '') throw c.error(format.line, 'format', 'the format is empty');
  } else {
    const child = format.children[0];
    if (child) throw c.error(child.line, 'format', `a ${mediaType} format is text; found element <${child.name}> (wrap it in CDATA)`);
    text = format.text.trim();
  }
  const args: PayloadArgAst[] = [];
  for (const ch of el.children) {
    if (ch.local === 'format' || ch.local === 'description') continue;
    if (ch.local !== 'args') throw c.error(ch.line, ch.name, `unexpected <${ch.name}> in payloadFactory (format, args)`);
    for (const a of ch.children) {
      if (a.local !== 'arg') throw c.error(a.line, a.name, `unexpected <${a.name}> in args (arg)`);
      args.push(payloadArg(c, a));
    }
  }
  const parts: string[] = [];
  const slots: number[] = [];
  const re = /\$(\d+)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const n = Number(m[1]);
    if (n < 1 || n > args.length) {
      throw c.error(format.line, 'format', `$${m[1]} has no matching <arg> (${args.length} given)`);
    }
    parts.push(text.slice(last, m.index));
    slots.push(n - 1);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return { kind: 'payloadFactory', line: el.line, mediaType, parts, slots, args, soapEnvelope: mediaType === 'xml' ? envelopeVersion(text) : null };
}

function payloadArg(c: ElementChecks, a: Element): PayloadArgAst {
  const evaluator = (a.attrs['evaluator'] ?? 'xml').toLowerCase();
  if (evaluator !== 'xml' && evaluator !== 'json') throw c.error(a.line, 'arg', `evaluator must be xml or json, not "${a.attrs['evaluator']}"`);
  const literal = (a.attrs['literal'] ?? 'false').toLowerCase() === 'true';
  const value = a.attrs['value'];
  const expression = a.attrs['expression'];
  if (value !== undefined && expression !== undefined) throw c.error(a.line, 'arg', 'give value or expression, not both');
  if (value !== undefined) return { line: a.line, json: false, literal: true, value };
  if (expression === undefined || expression.trim() === '') throw c.error(a.line, 'arg', 'missing required attribute value or expression', a.column);
  let expr: ExprAst;
  if (evaluator === 'json' && expression.trim().startsWith('$') && !/^\$(ctx|axis2|trp):/.test(expression.trim())) {
    try {
      expr = { k: 'json', path: parseJsonPath(expression), src: expression.trim() };
    } catch (err) {
      if (err instanceof ExpressionError) throw c.error(a.line, 'arg', `expression: ${err.message}`);
      throw err;
    }
  } else {
    expr = c.expression(a, expression);
  }
  return { line: a.line, json: evaluator === 'json' || expr.k === 'json', literal, expr, exprText: expression };
}

/** The SOAP version when an xml format's root element is a SOAP envelope. */
function envelopeVersion(format: string): '11' | '12' | null {
  const m = /^<(?:([A-Za-z_][\w.-]*):)?Envelope\b([^>]*)>/.exec(format);
  if (!m) return null;
  const decl = m[1] ? `xmlns:${m[1]}` : 'xmlns';
  const ns = new RegExp(`${decl}\\s*=\\s*["']([^"']+)["']`).exec(m[2] ?? '')?.[1];
  if (ns === 'http://schemas.xmlsoap.org/soap/envelope/') return '11';
  if (ns === 'http://www.w3.org/2003/05/soap-envelope') return '12';
  return null;
}
