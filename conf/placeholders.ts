/**
 * Placeholders in deployment.toml values:
 * - `$env{NAME}`: an environment variable; an unset one is an error.
 * - `$ref{section.key}` and `$conf{section.key}`: another key's value (as written, else its catalog default).
 *   A value that is only a reference takes the referenced value's type (a number stays a number).
 * - `${...}` runtime placeholders, resolved at load time: see RUNTIME_PLACEHOLDERS.
 */
export const TOKEN = /\$(env|ref|conf)\{([^}]*)\}|\$\{([^}]*)\}/g;
export const WHOLE_REF = /^\$(ref|conf)\{([^}]*)\}$/;

/** The `${...}` placeholders Sluice fills in, with what each stands for (docs/configuration.md lists them). */
export const RUNTIME_PLACEHOLDERS = {
  'carbon.home': 'the home directory (the reference system\'s name for it)',
  'sluice.home': 'the home directory',
  'carbon.host': 'server.hostname',
  'carbon.protocol': 'https',
  'carbon.management.port': 'the servlet HTTPS port, offset applied',
  'mgt.transport.https.port': 'the servlet HTTPS port, offset applied',
  'mgt.transport.http.port': 'the servlet HTTP port, offset applied',
  'http.nio.port': 'the pass-through HTTP port, offset applied',
  'https.nio.port': 'the pass-through HTTPS port, offset applied',
  'carbon.context': '/',
} as const;
export type RuntimePlaceholder = keyof typeof RUNTIME_PLACEHOLDERS;

export function isRuntimePlaceholder(name: string): name is RuntimePlaceholder {
  return Object.prototype.hasOwnProperty.call(RUNTIME_PLACEHOLDERS, name);
}
