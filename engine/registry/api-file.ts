import path from 'node:path';
import type { ApiDefinition, ApiSecurityScheme, AuthType, CorsOverride, ResourceDefinition } from './types.js';
import type { SourceLocator } from '../../conf/source-locator.js';
import { Fields, readTomlSource } from './toml-file.js';

const API_TYPES = ['HTTP', 'GRAPHQL', 'WS'] as const;
const STATES = ['CREATED', 'PUBLISHED', 'BLOCKED', 'DEPRECATED', 'RETIRED', 'PROTOTYPED'] as const;
const AUTH_TYPES: readonly AuthType[] = ['None', 'Application', 'Application User', 'Application & Application User'];
const VERBS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
const KNOWN_FIELDS = new Set(['name', 'context', 'version', 'type', 'lifecycle_state', 'throttling_policy', 'endpoints', 'resources',
  'in_sequence', 'out_sequence', 'fault_sequence', 'cors', 'backend_max_tps', 'client_certificates', 'description',
  'max_buffered_request_body_size', 'max_buffered_response_body_size', 'security']);
const SECURITY_SCHEMES: readonly ApiSecurityScheme[] = ['oauth2', 'api_key', 'basic_auth'];

function endpointUrl(f: Fields, obj: Record<string, unknown>, name: string, type: string): string | undefined {
  const v = f.string(obj, name);
  if (v === undefined) return undefined;
  let u: URL;
  try { u = new URL(v); } catch { throw f.error(name, `"${v}" is not a URL`); }
  const ok = type === 'WS' ? ['ws:', 'wss:', 'http:', 'https:'] : ['http:', 'https:'];
  if (!ok.includes(u.protocol)) throw f.error(name, `scheme ${u.protocol} is not supported for a ${type} API`);
  return v;
}

/**
 * Credentialed CORS names its origins: never "*" (any site would read answers with the user's cookies) nor
 * "null" (sandboxed iframes, data: and file: documents, which any site can create), and never the global
 * [apim.cors] list inherited by leaving allow_origins out (it is "*" in the default home).
 */
function checkCredentialedOrigins(cf: Fields, origins: readonly string[]): void {
  if (origins.length === 0) {
    throw cf.error('allow_credentials', 'true needs the API\'s own allow_origins (explicit origins such as "https://app.example.com"); the global [apim.cors] origins are not inherited with credentials');
  }
  for (const o of origins) {
    if (o === '*' || o.toLowerCase() === 'null') throw cf.error('allow_origins', `"${o}" cannot be combined with allow_credentials = true; list explicit origins`);
  }
}

/** A byte cap: an integer of at least 1024 (the same floor as the [passthru_http] keys). */
function byteLimit(f: Fields, doc: Record<string, unknown>, name: string): number | undefined {
  const v = f.number(doc, name);
  if (v !== undefined && (!Number.isSafeInteger(v) || v < 1024)) throw f.error(name, `${v} must be a whole number of bytes, at least 1024`);
  return v;
}

/**
 * Parses and checks one API definition file (format: docs/declarative-files.md). With the source's locator,
 * every error names the line of the key it is about.
 */
export function parseApiDefinition(doc: Record<string, unknown>, file: string, locator?: SourceLocator): ApiDefinition {
  const f = new Fields(file, '', locator);
  for (const k of Object.keys(doc)) if (!KNOWN_FIELDS.has(k)) throw f.error(k, `unknown field "${k}" (known: ${[...KNOWN_FIELDS].join(', ')})`);
  const name = f.string(doc, 'name', true);
  const version = f.string(doc, 'version', true);
  let context = f.string(doc, 'context', true).trim();
  if (!context.startsWith('/')) context = '/' + context;
  context = context.replace(/\/+$/, '');
  if (context === '' || /[\s?#{}*]/.test(context)) throw f.error('context', `"${context}" must be a path such as /pizzashack`);
  if (/[\s/?#]/.test(version)) throw f.error('version', `"${version}" must be one path segment such as 1.0.0`);
  const type = f.oneOf(doc, 'type', API_TYPES, 'HTTP');
  const endpoints = f.table(doc, 'endpoints') ?? {};
  const ef = f.nested('endpoints');
  const production = endpointUrl(ef, endpoints, 'production', type);
  const sandbox = endpointUrl(ef, endpoints, 'sandbox', type);
  const resources: ResourceDefinition[] = f.tables(doc, 'resources').map((r, i) => {
    const rf = f.nested(`resources[${i}]`);
    const verb = rf.oneOf(r, 'verb', VERBS, 'GET');
    const uriTemplate = rf.string(r, 'uri_template', true).trim();
    if (!uriTemplate.startsWith('/')) throw rf.error('uri_template', `"${uriTemplate}" must start with /`);
    return {
      verb,
      uriTemplate,
      authType: rf.oneOf(r, 'auth_type', AUTH_TYPES, 'Application & Application User'),
      throttlingPolicy: rf.string(r, 'throttling_policy') ?? 'Unlimited',
      scopes: rf.strings(r, 'scopes'),
    };
  });
  if (resources.length === 0) throw f.error('resources', 'an API needs at least one [[resources]] entry');
  const corsTable = f.table(doc, 'cors');
  let cors: CorsOverride | undefined;
  if (corsTable) {
    const cf = f.nested('cors');
    cors = {
      enabled: cf.boolean(corsTable, 'enable', true),
      allowOrigins: cf.strings(corsTable, 'allow_origins'),
      allowMethods: cf.strings(corsTable, 'allow_methods'),
      allowHeaders: cf.strings(corsTable, 'allow_headers'),
      allowCredentials: cf.boolean(corsTable, 'allow_credentials', false),
    };
    if (cors.allowCredentials) checkCredentialedOrigins(cf, cors.allowOrigins);
  }
  let security: ApiSecurityScheme[] | undefined;
  if (doc['security'] !== undefined) {
    security = [...new Set(f.strings(doc, 'security').map((s) => s.toLowerCase()))] as ApiSecurityScheme[];
    const bad = security.filter((s) => !SECURITY_SCHEMES.includes(s));
    if (bad.length) throw f.error('security', `${bad.join(', ')} is not one of ${SECURITY_SCHEMES.join(', ')}`);
    if (security.length === 0) throw f.error('security', 'name at least one of oauth2, api_key, basic_auth');
  }
  const backendMaxTps = f.number(doc, 'backend_max_tps');
  const maxRequest = byteLimit(f, doc, 'max_buffered_request_body_size');
  const maxResponse = byteLimit(f, doc, 'max_buffered_response_body_size');
  const inSequence = f.string(doc, 'in_sequence');
  const outSequence = f.string(doc, 'out_sequence');
  const faultSequence = f.string(doc, 'fault_sequence');
  return {
    id: `${name}:${version}`,
    name, context, version, type,
    lifecycleState: f.oneOf(doc, 'lifecycle_state', STATES, 'PUBLISHED'),
    throttlingPolicy: f.string(doc, 'throttling_policy') ?? 'Unlimited',
    endpoints: { ...(production ? { production } : {}), ...(sandbox ? { sandbox } : {}) },
    resources,
    ...(inSequence ? { inSequence } : {}),
    ...(outSequence ? { outSequence } : {}),
    ...(faultSequence ? { faultSequence } : {}),
    ...(cors ? { cors } : {}),
    ...(backendMaxTps !== undefined ? { backendMaxTps } : {}),
    ...(maxRequest !== undefined ? { maxBufferedRequestBodySize: maxRequest } : {}),
    ...(maxResponse !== undefined ? { maxBufferedResponseBodySize: maxResponse } : {}),
    ...(doc['client_certificates'] !== undefined ? { clientCertificates: f.strings(doc, 'client_certificates') } : {}),
    ...(security ? { security } : {}),
    source: path.resolve(file),
  };
}

export function readApiFile(file: string): ApiDefinition {
  const { doc, locator } = readTomlSource(file);
  return parseApiDefinition(doc, file, locator);
}
