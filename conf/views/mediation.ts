import type { Config } from '../config.js';

/** What the mediation engine reads from deployment.toml ([mediation], builders and formatters). Plain data. */
export interface MediationView {
  /** `<home>/repository/deployment/server/synapse-configs/default/sequences`. */
  readonly sequencesDir: string;
  /** [mediation] synapse.global_timeout_interval: a backend response later than this is dropped (warning logged). */
  readonly globalTimeoutMs: number;
  /** Builders, formatters and the XML -> JSON options: posted to io threads, loaded with loadCodecs(). */
  readonly codecs: CodecSettings;
  /** [mediation] respond_reflects_request_headers: `<respond/>` in a request flow sends the request's headers back. */
  readonly respondReflectsRequestHeaders: boolean;
}

/** A custom builder or formatter: the module that serves a media type. */
export interface CodecModuleRef {
  /** Media type, `application/x-acme` (parameters ignored). */
  readonly contentType: string;
  /** JS module path, absolute or relative to the home. */
  readonly module: string;
}

/** The builders, formatters and conversion options: plain data, posted to io threads (mediation/codecs.ts loads them). */
export interface CodecSettings {
  readonly builders: readonly CodecModuleRef[];
  readonly formatters: readonly CodecModuleRef[];
  /** Values matching it stay strings in XML -> JSON conversion ([mediation] synapse.disable_auto_primitive_regex). */
  readonly disableAutoPrimitiveRegex: string | null;
  /** [mediation] synapse.preserve_namespace_on_xml_to_json. */
  readonly preserveNamespaceOnXmlToJson: boolean;
  /** Base for relative module paths. */
  readonly home: string;
}

/** [message_builders] / [message_formatters] keys and the content types they stand for. */
const CODEC_KEYS = {
  application_xml: 'application/xml',
  form_urlencoded: 'application/x-www-form-urlencoded',
  multipart_form_data: 'multipart/form-data',
  text_plain: 'text/plain',
  application_json: 'application/json',
  json_badgerfish: 'application/json/badgerfish',
  text_javascript: 'text/javascript',
  octet_stream: 'application/octet-stream',
  application_binary: 'application/binary',
  text_xml: 'text/xml',
  soap_xml: 'application/soap+xml',
} as const;

const FORMATTER_KEYS = Object.keys(CODEC_KEYS) as (keyof typeof CODEC_KEYS)[];
/** Builders have no text_xml / soap_xml keys (one XML builder reads both). */
const BUILDER_KEYS = FORMATTER_KEYS.filter((k): k is Exclude<keyof typeof CODEC_KEYS, 'text_xml' | 'soap_xml'> => k !== 'text_xml' && k !== 'soap_xml');

/**
 * A class value names a JS module (absolute or home-relative path ending in .js, .mjs or .cjs); anything else
 * is a reference-system Java class name, accepted and served by the built-in codec.
 */
function isModulePath(v: unknown): v is string {
  return typeof v === 'string' && /\.(m|c)?js$/i.test(v.trim());
}

export function mediationView(config: Config): MediationView {
  const builders = new Map<string, CodecModuleRef>();
  const formatters = new Map<string, CodecModuleRef>();
  const add = (into: Map<string, CodecModuleRef>, contentType: unknown, cls: unknown, override: boolean): void => {
    if (typeof contentType !== 'string' || !isModulePath(cls)) return;
    const key = contentType.trim().toLowerCase();
    if (override || !into.has(key)) into.set(key, { contentType: key, module: cls.trim() });
  };
  // The blocking. variants are accepted with the same effect; the non-blocking ones win on a conflict.
  for (const k of BUILDER_KEYS) {
    add(builders, CODEC_KEYS[k], config.get(`message_builders.${k}`), true);
    add(builders, CODEC_KEYS[k], config.get(`blocking.message_builders.${k}`), false);
  }
  for (const k of FORMATTER_KEYS) {
    add(formatters, CODEC_KEYS[k], config.get(`message_formatters.${k}`), true);
    add(formatters, CODEC_KEYS[k], config.get(`blocking.message_formatters.${k}`), false);
  }
  for (const item of config.items('custom_message_builders')) add(builders, item['content_type'], item['class'], true);
  for (const item of config.items('blocking.custom_message_builders')) add(builders, item['content_type'], item['class'], false);
  for (const item of config.items('custom_message_formatters')) add(formatters, item['content_type'], item['class'], true);
  for (const item of config.items('blocking.custom_message_formatters')) add(formatters, item['content_type'], item['class'], false);

  return {
    sequencesDir: config.home.sequencesDir,
    globalTimeoutMs: config.get('mediation.synapse.global_timeout_interval'),
    respondReflectsRequestHeaders: config.get('mediation.respond_reflects_request_headers'),
    codecs: {
      builders: [...builders.values()],
      formatters: [...formatters.values()],
      disableAutoPrimitiveRegex: config.get('mediation.synapse.disable_auto_primitive_regex') ?? null,
      preserveNamespaceOnXmlToJson: config.get('mediation.synapse.preserve_namespace_on_xml_to_json'),
      home: config.home.root,
    },
  };
}
