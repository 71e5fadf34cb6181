import type { MakefaultAst, ValueSource } from '../ast.js';
import type { ElementChecks } from './checks.js';
import type { Element } from './source.js';

/** `<makefault>`: a SOAP 1.1, SOAP 1.2 or POX fault from its code, reason and detail. */
export function parseMakefault(c: ElementChecks, el: Element): MakefaultAst {
  const version = (el.attrs['version'] ?? 'soap11').toLowerCase();
  if (version !== 'soap11' && version !== 'soap12' && version !== 'pox') {
    throw c.error(el.line, el.name, `version must be soap11, soap12 or pox, not "${el.attrs['version']}"`);
  }
  let code = '';
  let reason: ValueSource | undefined;
  let detail: MakefaultAst['detail'];
  for (const ch of el.children) {
    switch (ch.local) {
      case 'code': code = c.required(ch, 'value'); break;
      case 'reason': reason = c.valueSource(ch, true); break;
      case 'detail': {
        const src = c.valueSource(ch, false);
        detail = src.value !== undefined || src.expr ? src : { xml: ch.inner.trim() };
        break;
      }
      case 'node': case 'role': case 'description': break;
      default: throw c.error(ch.line, ch.name, `unexpected <${ch.name}> in makefault (code, reason, detail, node, role)`);
    }
  }
  if (version !== 'pox' && code === '') throw c.error(el.line, el.name, 'missing required child <code value="..."/>');
  if (!reason) throw c.error(el.line, el.name, 'missing required child <reason value="..."/> (or expression)');
  return { kind: 'makefault', line: el.line, version, code, reason, ...(detail ? { detail } : {}) };
}
