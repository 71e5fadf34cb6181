import type { X2jOptions } from 'fast-xml-parser';

/**
 * How fast-xml-parser reads XML here, sequence files (parse/source.ts) and message bodies (xml-model.ts)
 * alike: nodes in document order, attributes as written (no prefix, no guessing of numbers), text untouched,
 * CDATA apart from text, entities decoded; comments, the declaration and processing instructions dropped.
 * Names are kept as written: the parser renames `toString`, `valueOf`, `hasOwnProperty` and the
 * `__defineGetter__` family to `__toString`... by default, which changed the document; each node here is an
 * object of its own and the models built from it add members by own name (members.ts). It still refuses
 * `__proto__`, `constructor` and `prototype` as names: such a body does not build (docs/decisions.md).
 */
export const XML_PARSER_OPTIONS: Readonly<X2jOptions> = Object.freeze({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  commentPropName: false,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  onDangerousProperty: (name: string) => name,
});
