import type { ItemValues } from '../config.js';

type Report = (path: string, message: string, severity?: 'error' | 'warning') => void;

/**
 * Rules the catalog states across keys. Each reads the loaded values (defaults filled) and reports on the
 * key an operator has to change.
 */
export function checkCrossKeyRules(values: Map<string, unknown>, _items: Map<string, ItemValues[]>, report: Report): void {
  const get = (p: string): unknown => values.get(p);

  // [apim.cors]: credentials may not be combined with a wildcard origin (it would hand credentials to every
  // site) nor with "null" (any site can make a document whose Origin is null: a sandboxed iframe).
  const origins = get('apim.cors.allow_origins');
  if (get('apim.cors.allow_credentials') === true && Array.isArray(origins)) {
    if (origins.includes('*')) report('apim.cors.allow_credentials', 'allow_credentials = true needs explicit allow_origins, not "*"');
    if (origins.some((o) => typeof o === 'string' && o.toLowerCase() === 'null')) {
      report('apim.cors.allow_credentials', 'allow_credentials = true cannot be combined with the origin "null" (sandboxed iframes and data: documents send it); list explicit origins');
    }
  }

  // Caches: the gateway token cache or the key manager token cache, not both.
  if (get('apim.cache.gateway_token.enable') === true && get('apim.cache.km_token.enable') === true) {
    report('apim.cache.km_token.enable', 'use either the gateway token cache ([apim.cache.gateway_token]) or the key manager token cache ([apim.cache.km_token]), not both');
  }

  // Databases: url wins over hostname/port; a server database needs one or the other.
  for (const db of ['apim_db', 'shared_db'] as const) {
    const base = `database.${db}`;
    const url = get(`${base}.url`);
    const hasHost = values.has(`${base}.hostname`) || values.has(`${base}.port`);
    const type = get(`${base}.type`);
    if (url && hasHost) report(`${base}.url`, 'url is set, so hostname and port are ignored', 'warning');
    if (type !== undefined && type !== 'h2' && !url && !(values.has(`${base}.hostname`))) {
      report(`${base}.type`, `type "${String(type)}" needs url, or hostname and port`);
    }
    if (type !== undefined && type !== 'h2' && type !== 'postgre') {
      report(`${base}.type`, `type "${String(type)}" is accepted by the catalog but Sluice stores data only in the embedded store (h2, served by SQLite) and PostgreSQL (postgre)`);
    }
  }

  // Pass-through transports are non-blocking by construction; blocking settings live in [transport.blocking_*].
  for (const t of ['transport.passthru_http', 'transport.passthru_https'] as const) {
    for (const k of ['listener.parameters.non-blocking', 'sender.parameters.non-blocking'] as const) {
      if (get(`${t}.${k}`) === false) {
        report(`${t}.${k}`, 'the pass-through transport is non-blocking only; blocking sender settings belong in [transport.blocking_http] / [transport.blocking_https]');
      }
    }
  }

  // OTLP tracing: an http(s) URL, and headers written "Name: value" without line breaks (they go on the wire).
  const otlpUrl = get('sluice.tracing.otlp.endpoint');
  if (get('sluice.tracing.otlp.enable') === true && typeof otlpUrl === 'string') {
    let ok = false;
    try { ok = /^https?:$/.test(new URL(otlpUrl).protocol); } catch { /* reported below */ }
    if (!ok) report('sluice.tracing.otlp.endpoint', `"${otlpUrl}" is not an http or https URL (for example http://localhost:4318/v1/traces)`);
  }
  const otlpHeaders = get('sluice.tracing.otlp.headers');
  if (Array.isArray(otlpHeaders)) {
    for (const h of otlpHeaders) {
      if (typeof h !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n\0]*$/.test(h)) {
        report('sluice.tracing.otlp.headers', 'each header is "Name: value", a token name and no line break');
        break;
      }
    }
  }

  // Worker pool: a maximum below the core size cannot be honoured.
  const core = get('passthru_http.worker_pool_size_core');
  const max = get('passthru_http.worker_pool_size_max');
  if (typeof core === 'number' && typeof max === 'number' && max < core) {
    report('passthru_http.worker_pool_size_max', `worker_pool_size_max (${max}) is below worker_pool_size_core (${core})`);
  }
  const queue = get('passthru_http.worker_pool_queue_length');
  if (typeof queue === 'number' && queue < -1) report('passthru_http.worker_pool_queue_length', 'use -1 for an unbounded queue, or a size of 0 or more');

  // JWT for the backend: only the two algorithms the catalog names.
  const alg = get('apim.jwt.signing_algorithm');
  if (typeof alg === 'string' && alg !== 'SHA256withRSA' && alg !== 'NONE') {
    report('apim.jwt.signing_algorithm', `signing algorithm "${alg}" is not supported (SHA256withRSA or NONE)`);
  }
}
