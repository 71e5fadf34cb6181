/**
 * Deploy time, main thread: sequence XML text -> SequenceAst. The XML is read here once; nothing downstream
 * (compile, run) sees XML again. Every problem is a SequenceDeployError with file, line and element.
 *
 * This file reads the root and the mediators that hold others (filter, switch, in, out) or name them
 * (sequence, send); parse/ reads the XML (source.ts) and the other mediators.
 */
import type { FilterAst, FlowAst, MediatorAst, SequenceAst, SwitchAst, SwitchCaseAst } from './ast.js';
import { ElementChecks } from './parse/checks.js';
import { parseMakefault } from './parse/makefault.js';
import { parsePayloadFactory } from './parse/payload-factory.js';
import { parseHeader, parseLog, parseProperty } from './parse/property-header-log.js';
import { readElements, type Element } from './parse/source.js';

/** How many times parseSequence ran in this thread: tests use it to prove the hot path never parses. */
let parseCount = 0;
export function sequenceParseCount(): number { return parseCount; }

/** Parses one sequence file. `file` is used in errors and kept on the AST. */
export function parseSequence(xmlText: string, file: string): SequenceAst {
  parseCount++;
  return new SequenceParser(xmlText, file).parse();
}

class SequenceParser {
  private readonly c: ElementChecks;

  constructor(private readonly source: string, private readonly file: string) {
    this.c = new ElementChecks(file);
  }

  parse(): SequenceAst {
    const c = this.c;
    if (this.source.trim() === '') throw c.error(0, '', 'the file is empty');
    const roots = readElements(this.source, this.file);
    if (roots.length !== 1) {
      throw c.error(roots[1]?.line ?? 0, roots[1]?.name ?? '', `a sequence file holds exactly one root element, found ${roots.length}`);
    }
    const root = roots[0]!;
    if (root.local !== 'sequence') {
      throw c.error(root.line, root.name, 'the root element must be <sequence> (one sequence per file)');
    }
    const name = root.attrs['name'];
    if (!name) throw c.error(root.line, 'sequence', 'missing required attribute name');
    if (root.attrs['key'] !== undefined) throw c.error(root.line, 'sequence', 'a root <sequence> takes name, not key');
    const refs = new Set<string>();
    const onError = root.attrs['onError'] || null;
    if (onError) {
      c.checkKey(onError, root, 'onError');
      refs.add(onError);
    }
    const body = this.mediators(root.children, refs);
    return { name, file: this.file, line: root.line, onError, body, refs: [...refs] };
  }

  private mediators(children: readonly Element[], refs: Set<string>): MediatorAst[] {
    const out: MediatorAst[] = [];
    for (const el of children) {
      const m = this.mediator(el, refs);
      if (m) out.push(m);
    }
    return out;
  }

  private mediator(el: Element, refs: Set<string>): MediatorAst | null {
    const c = this.c;
    switch (el.local) {
      case 'description': return null;
      case 'property': return parseProperty(c, el);
      case 'payloadFactory': return parsePayloadFactory(c, el);
      case 'header': return parseHeader(c, el);
      case 'log': return parseLog(c, el);
      case 'filter': return this.filter(el, refs);
      case 'switch': return this.switchMediator(el, refs);
      case 'sequence': return this.sequenceRef(el, refs);
      case 'respond':
      case 'drop':
      case 'loopback':
        c.noChildren(el);
        return { kind: el.local, line: el.line };
      case 'send': return this.send(el);
      case 'makefault': return parseMakefault(c, el);
      case 'in':
      case 'out': {
        const flow: FlowAst = { kind: el.local, line: el.line, body: this.mediators(el.children, refs) };
        return flow;
      }
      default:
        throw c.error(el.line, el.name, `unknown mediator <${el.name}> (supported: property, payloadFactory, header, log, filter, switch, sequence, respond, send, drop, makefault, loopback, in, out)`, el.column);
    }
  }

  private filter(el: Element, refs: Set<string>): FilterAst {
    const c = this.c;
    const source = el.attrs['source'];
    const regex = el.attrs['regex'];
    const xpath = el.attrs['xpath'];
    let cond: Pick<FilterAst, 'source' | 'regex' | 'condition'>;
    if (xpath !== undefined) {
      if (source !== undefined || regex !== undefined) throw c.error(el.line, el.name, 'give source and regex, or xpath, not both');
      cond = { condition: c.expression(el, xpath, 'xpath') };
    } else {
      if (source === undefined || regex === undefined) {
        throw c.error(el.line, el.name, `missing required attribute ${source === undefined ? 'source' : 'regex'} (or give xpath)`, el.column);
      }
      c.compileRegex(el, regex);
      cond = { source: c.expression(el, source, 'source'), regex };
    }
    const thenEl = el.children.filter((ch) => ch.local === 'then');
    const elseEl = el.children.filter((ch) => ch.local === 'else');
    const others = el.children.filter((ch) => ch.local !== 'then' && ch.local !== 'else' && ch.local !== 'description');
    if (thenEl.length > 1 || elseEl.length > 1) throw c.error(el.line, el.name, 'at most one <then> and one <else>');
    if ((thenEl.length || elseEl.length) && others.length) {
      throw c.error(others[0]!.line, el.name, `<${others[0]!.name}> beside <then>/<else>: put it inside one of them`);
    }
    const thenBody = thenEl.length ? this.mediators(thenEl[0]!.children, refs) : this.mediators(others, refs);
    const elseBody = elseEl.length ? this.mediators(elseEl[0]!.children, refs) : [];
    return { kind: 'filter', line: el.line, ...cond, then: thenBody, else: elseBody };
  }

  private switchMediator(el: Element, refs: Set<string>): SwitchAst {
    const c = this.c;
    const source = c.expression(el, c.required(el, 'source'), 'source');
    const cases: SwitchCaseAst[] = [];
    let def: MediatorAst[] = [];
    let seenDefault = false;
    for (const ch of el.children) {
      if (ch.local === 'description') continue;
      if (ch.local === 'case') {
        const regex = c.required(ch, 'regex');
        c.compileRegex(ch, regex);
        cases.push({ line: ch.line, regex, body: this.mediators(ch.children, refs) });
      } else if (ch.local === 'default') {
        if (seenDefault) throw c.error(ch.line, 'default', 'only one <default> is allowed');
        seenDefault = true;
        def = this.mediators(ch.children, refs);
      } else {
        throw c.error(ch.line, ch.name, `unexpected <${ch.name}> in switch (case, default)`);
      }
    }
    return { kind: 'switch', line: el.line, source, cases, default: def };
  }

  private sequenceRef(el: Element, refs: Set<string>): MediatorAst {
    const c = this.c;
    if (el.attrs['name'] !== undefined && el.attrs['key'] === undefined) {
      throw c.error(el.line, el.name, 'a nested <sequence> must reference a deployed sequence with key="..." (anonymous sequences are not supported)');
    }
    const key = c.required(el, 'key');
    c.checkKey(key, el, 'key');
    c.noChildren(el);
    refs.add(key);
    return { kind: 'sequence', line: el.line, key };
  }

  private send(el: Element): MediatorAst {
    const child = el.children.find((ch) => ch.local !== 'description');
    if (child) {
      throw this.c.error(child.line, child.name, '<send> with an endpoint is not supported: a plain <send/> sends to the API\'s endpoint (or to the client in a response or fault flow)');
    }
    if (el.attrs['receive'] !== undefined) throw this.c.error(el.line, el.name, 'the receive attribute is not supported');
    return { kind: 'send', line: el.line };
  }
}
