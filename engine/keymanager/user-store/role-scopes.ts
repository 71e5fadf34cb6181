import type { ApimStore } from '../../store/index.js';

/**
 * Scopes bound to roles (the reference system's scope-role bindings): a scope that some role lists is
 * granted to a user's token only when one of the user's roles lists it; a scope no role lists is not
 * role-restricted (the client's key and oauth.allowed_scopes still decide). Read from the `roles` table and
 * kept for a moment; changes made through this node clear it at once.
 */
export class RoleScopes {
  private cached: { at: number; byScope: Map<string, Set<string>>; byRole: Map<string, readonly string[]> } | undefined;

  constructor(private readonly store: ApimStore, private readonly ttl = 5000, private readonly now: () => number = Date.now) {}

  private async load(): Promise<NonNullable<RoleScopes['cached']>> {
    const t = this.now();
    if (this.cached && t - this.cached.at < this.ttl) return this.cached;
    const byScope = new Map<string, Set<string>>();
    const byRole = new Map<string, readonly string[]>();
    for (const r of await this.store.roles.list()) {
      byRole.set(r.name, r.scopes);
      for (const s of r.scopes) {
        let roles = byScope.get(s);
        if (!roles) { roles = new Set(); byScope.set(s, roles); }
        roles.add(r.name);
      }
    }
    this.cached = { at: t, byScope, byRole };
    return this.cached;
  }

  /** The scopes of `scopes` this user may hold; `default` when none is left (as ScopePolicy.grant). */
  async filter(scopes: readonly string[], userRoles: readonly string[]): Promise<string[]> {
    const { byScope } = await this.load();
    const kept = scopes.filter((s) => {
      const roles = byScope.get(s);
      return roles === undefined || userRoles.some((r) => roles.has(r));
    });
    return kept.length ? kept : ['default'];
  }

  /** Every scope the roles grant (Basic auth at the gateway checks resource scopes against these). */
  async scopesOf(userRoles: readonly string[]): Promise<string[]> {
    const { byRole } = await this.load();
    return [...new Set(userRoles.flatMap((r) => byRole.get(r) ?? []))];
  }

  invalidate(): void {
    this.cached = undefined;
  }
}
