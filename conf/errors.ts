/** What went wrong in a configuration file, located as precisely as the source allows. */
export interface ConfigIssue {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** Key path, `section.key` (`passthru_http.http.socket.timeout`); absent for file-level problems. */
  readonly path?: string;
  readonly message: string;
  /** What a valid value looks like, when the problem is the value. */
  readonly expected?: string;
  /** A known key close to an unknown one. */
  readonly suggestion?: string;
}

export function formatIssue(i: ConfigIssue): string {
  let where = i.file;
  if (i.line !== undefined) where += `:${i.line}${i.column !== undefined ? `:${i.column}` : ''}`;
  let text = `${where}: ${i.path ? `${i.path}: ` : ''}${i.message}`;
  if (i.expected) text += ` (expected ${i.expected})`;
  if (i.suggestion) text += `; did you mean ${i.suggestion}?`;
  return text;
}

/** A configuration that cannot be used. Carries every error found, not only the first. */
export class ConfigError extends Error {
  readonly code = 'SLUICE_CONFIG_INVALID';
  constructor(readonly issues: readonly ConfigIssue[], readonly warnings: readonly ConfigIssue[] = []) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'ConfigError';
  }
}
