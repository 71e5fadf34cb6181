import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SequenceDeployError } from '../errors.js';
import { XML_PARSER_OPTIONS } from '../xml-parser-options.js';

/** One element of the source, with its location and (for raw XML payloads) its inner source text. */
export interface Element {
  readonly name: string;
  /** The name without a namespace prefix. */
  readonly local: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly Element[];
  /** Text and CDATA directly inside, entity-decoded, concatenated. */
  readonly text: string;
  readonly line: number;
  readonly column: number;
  /** The source between the opening and the closing tag ('' when self-closing). */
  readonly inner: string;
}

const META = XMLParser.getMetaDataSymbol() as unknown as symbol;
/** The metadata gives each element's offset in the source: its line, column and inner text come from it. */
const parser = new XMLParser({ ...XML_PARSER_OPTIONS, captureMetaData: true });

/** A sequence file's text read as elements; malformed XML is a SequenceDeployError with its line. */
export function readElements(source: string, file: string): Element[] {
  return new SourceReader(source, file).read();
}

class SourceReader {
  private readonly lineStarts: number[] = [0];

  constructor(private readonly source: string, private readonly file: string) {
    for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  read(): Element[] {
    const valid = XMLValidator.validate(this.source, { allowBooleanAttributes: false });
    if (valid !== true) {
      throw new SequenceDeployError(this.file, valid.err.line ?? 0, '', `malformed XML: ${valid.err.msg}`, valid.err.col);
    }
    let doc: unknown[];
    try {
      doc = parser.parse(this.source) as unknown[];
    } catch (err) {
      throw new SequenceDeployError(this.file, 0, '', `malformed XML: ${(err as Error).message}`);
    }
    return this.elements(doc);
  }

  private position(index: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid; else hi = mid - 1;
    }
    return { line: lo + 1, column: index - this.lineStarts[lo]! + 1 };
  }

  private elements(nodes: unknown[]): Element[] {
    const out: Element[] = [];
    for (const raw of nodes) {
      const node = raw as Record<string | symbol, unknown>;
      const tag = Object.keys(node).find((k) => k !== ':@');
      if (tag === undefined || tag === '#text' || tag === '#cdata') continue;
      const meta = node[META] as { startIndex?: number; endIndex?: number } | undefined;
      const start = meta?.startIndex ?? 0;
      const end = meta?.endIndex ?? start;
      const { line, column } = this.position(start);
      const childNodes = (node[tag] as unknown[]) ?? [];
      const attrs = (node[':@'] as Record<string, string> | undefined) ?? {};
      const colon = tag.indexOf(':');
      out.push({
        name: tag,
        local: colon >= 0 ? tag.slice(colon + 1) : tag,
        attrs,
        children: this.elements(childNodes),
        text: textOf(childNodes),
        line,
        column,
        inner: this.innerSource(start, end),
      });
    }
    return out;
  }

  /** Source between the end of the opening tag and the start of the closing tag. */
  private innerSource(start: number, end: number): string {
    const s = this.source;
    let quote = '';
    let i = start + 1;
    for (; i < end; i++) {
      const c = s[i]!;
      if (quote) { if (c === quote) quote = ''; continue; }
      if (c === '"' || c === '\'') quote = c;
      else if (c === '>') break;
    }
    if (s[i - 1] === '/') return '';
    // `end` is exclusive and the element ends with `</name>`: search before its last two characters, or
    // the parent's closing tag right after it would match.
    const close = s.lastIndexOf('</', end - 3);
    return close > i ? s.slice(i + 1, close) : '';
  }
}

function textOf(nodes: unknown[]): string {
  let text = '';
  for (const raw of nodes) {
    const node = raw as Record<string, unknown>;
    if ('#text' in node) text += String(node['#text']);
    else if ('#cdata' in node) text += textOf(node['#cdata'] as unknown[]);
  }
  return text;
}
