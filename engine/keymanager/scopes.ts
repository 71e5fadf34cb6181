import { InvalidScopeError } from './errors.js';

/** OpenID Connect Core §5.4: scopes that ask for profile claims; granted with openid. */
export const OIDC_CLAIM_SCOPES: ReadonlySet<string> = new Set(['profile', 'email', 'address', 'phone']);

/** The scope given when none of the requested scopes is granted (seed 000: the shown value is "default"). */
export const DEFAULT_SCOPE = 'default';

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Splits a scope parameter; throws invalid_scope on characters RFC 6749 does not allow. */
export function parseScope(value: string | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  const out: string[] = [];
  for (const s of value.split(' ')) {
    if (s === '') continue;
    if (!SCOPE_TOKEN.test(s)) throw new InvalidScopeError(`scope "${s}" holds characters RFC 6749 §3.3 does not allow`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/**
 * oauth.allowed_scopes (and apim.oauth_config.allowed_scopes): regular expressions matched against the whole
 * scope; a matching scope is granted without validation. A pattern that is not a valid expression matches
 * itself literally (and is reported once at start).
 */
export class ScopePolicy {
  private readonly patterns: RegExp[] = [];
  readonly invalidPatterns: string[] = [];

  constructor(allowed: readonly string[]) {
    for (const p of allowed) {
      try {
        this.patterns.push(new RegExp(`^(?:${p})$`, 'u'));
      } catch {
        this.invalidPatterns.push(p);
        this.patterns.push(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'u'));
      }
    }
  }

  freelyAllowed(scope: string): boolean {
    return this.patterns.some((re) => re.test(scope));
  }

  /**
   * What a client gets: each requested scope its key lists, or that an allowed pattern matches; the others
   * are dropped (RFC 6749 §3.3 lets the server issue less than asked). Nothing left: "default".
   */
  grant(requested: readonly string[], keyScopes: readonly string[]): string[] {
    const ok = (s: string): boolean => s === DEFAULT_SCOPE || keyScopes.includes(s) || this.freelyAllowed(s);
    // OpenID Connect's claim scopes go with openid: they only choose which profile claims userinfo releases.
    const openid = requested.includes('openid') && ok('openid');
    const granted = requested.filter((s) => ok(s) || (openid && OIDC_CLAIM_SCOPES.has(s)));
    return granted.length ? granted : [DEFAULT_SCOPE];
  }
}
