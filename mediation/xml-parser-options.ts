import type { X2jOptions } from 'fast-xml-parser';

/**
 * How fast-xml-parser reads XML here, sequence files (parse/source.ts) and message bodies (xml-model.ts)
 * alike: nodes in document order, attributes as written (no prefix, no guessing of numbers), text untouched,
 * CDATA apart from text, entities decoded; comments, the declaration and processing instructions dropped.
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
});
