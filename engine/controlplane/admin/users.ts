import { hashSecret } from '../../keymanager/secret-hash.js';
import { NAME } from '../../keymanager/user-store/users-file.js';
import { ADMIN_ROLE } from '../../keymanager/users.js';
import type { RoleRecord, UserRecord } from '../../store/index.js';
import { json, empty } from '../../servlet/index.js';
import { ADMIN_SOURCE } from './apis.js';
import type { AdminContext } from './context.js';
import { badRequest, conflict, jsonBody, listOf, notFound, read, type AdminRoutes } from './http.js';
import { setMember } from '../../../mediation/members.js';

const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_PASSWORD = 1024;

/** A user as the admin API shows one: never the password hash. */
export function userJson(u: UserRecord): Record<string, unknown> {
  return { username: u.username, roles: u.roles, claims: u.claims, source: sourceName(u.source) };
}

export function roleJson(r: RoleRecord): Record<string, unknown> {
  return { name: r.name, scopes: r.scopes, source: sourceName(r.source) };
}

function sourceName(source: string): string {
  return source.endsWith('.toml') ? 'file' : source;
}

function claimsOf(body: Record<string, unknown>): Record<string, string> | undefined {
  const o = read.object(body, 'claims');
  if (o === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'string' && typeof v !== 'boolean') throw badRequest(`claims.${k} must be a string`);
    setMember(out, k, String(v));
  }
  return out;
}

function scopesOf(body: Record<string, unknown>): string[] {
  const scopes = read.strings(body, 'scopes') ?? [];
  for (const s of scopes) if (!SCOPE.test(s)) throw badRequest(`"${s}" is not a scope (RFC 6749 §3.3)`);
  return scopes;
}

function passwordOf(body: Record<string, unknown>, required: boolean): string | undefined {
  const p = read.string(body, 'password', required);
  if (p !== undefined && (p.length === 0 || p.length > MAX_PASSWORD)) throw badRequest(`password must be 1 to ${MAX_PASSWORD} characters`);
  return p;
}

/**
 * Users of the database user store and roles with the scopes bound to them (docs/admin-api.md). Users and
 * roles declared in users files, and the [super_admin] account, are shown but changed only where they are
 * declared (409 here). Passwords are written as scrypt hashes and never shown.
 */
export function mountUsers(r: AdminRoutes, ctx: AdminContext): void {
  const findUser = async (name: string): Promise<UserRecord> => {
    const u = await ctx.store.users.get(name);
    if (!u) throw notFound(`no user ${name}`);
    return u;
  };
  const ownedUser = async (name: string): Promise<UserRecord> => {
    const u = await findUser(name);
    if (u.source.endsWith('.toml')) throw conflict(`the user ${name} is declared in the file ${u.source}`, 'change it by editing the file');
    if (u.source === 'config') throw conflict(`the user ${name} is the [super_admin] account`, 'change it in deployment.toml');
    return u;
  };
  const findRole = async (name: string): Promise<RoleRecord> => {
    const role = await ctx.store.roles.get(name);
    if (!role) throw notFound(`no role ${name}`);
    return role;
  };
  const ownedRole = async (name: string): Promise<RoleRecord> => {
    const role = await findRole(name);
    if (role.source.endsWith('.toml')) throw conflict(`the role ${name} is declared in the file ${role.source}`, 'change it by editing the file');
    return role;
  };

  r.add('GET', '/users', async () => json(200, listOf((await ctx.store.users.list()).map(userJson))));
  r.add('GET', '/users/{name}', async (_req, p) => json(200, userJson(await findUser(p['name']!))));

  r.add('POST', '/users', async (req) => {
    const body = await jsonBody(req);
    const username = read.string(body, 'username', true)!;
    if (!NAME.test(username)) throw badRequest('username may hold letters, digits and . _ @ + - (128 at most)');
    const password = passwordOf(body, true)!;
    if (await ctx.store.users.get(username)) throw conflict(`the user ${username} already exists`);
    const roles = read.strings(body, 'roles') ?? [];
    await ctx.store.users.put(username, await hashSecret(password), roles, Date.now(), { claims: claimsOf(body) ?? {}, source: ADMIN_SOURCE });
    ctx.log.info({ user: username, roles }, 'user created');
    return json(201, userJson((await ctx.store.users.get(username))!));
  });

  r.add('PUT', '/users/{name}', async (req, p) => {
    const u = await ownedUser(p['name']!);
    const body = await jsonBody(req);
    const password = passwordOf(body, false);
    const roles = read.strings(body, 'roles') ?? u.roles;
    await ctx.store.users.put(u.username, password !== undefined ? await hashSecret(password) : u.passwordHash, roles, Date.now(),
      { claims: claimsOf(body) ?? u.claims, source: u.source });
    ctx.log.info({ user: u.username, roles, password: password !== undefined ? 'changed' : 'kept' }, 'user changed');
    return json(200, userJson((await ctx.store.users.get(u.username))!));
  });

  r.add('DELETE', '/users/{name}', async (_req, p, caller) => {
    const u = await ownedUser(p['name']!);
    if (u.username === caller) throw conflict('an administrator cannot delete the account it is signed in with');
    await ctx.store.users.delete(u.username);
    ctx.log.info({ user: u.username }, 'user deleted');
    return empty(204);
  });

  r.add('GET', '/roles', async () => json(200, listOf((await ctx.store.roles.list()).map(roleJson))));
  r.add('GET', '/roles/{name}', async (_req, p) => json(200, roleJson(await findRole(p['name']!))));

  r.add('POST', '/roles', async (req) => {
    const body = await jsonBody(req);
    const name = read.string(body, 'name', true)!;
    if (!NAME.test(name)) throw badRequest('name may hold letters, digits and . _ @ + - (128 at most)');
    if (await ctx.store.roles.get(name)) throw conflict(`the role ${name} already exists`);
    await ctx.store.roles.put(name, scopesOf(body), ADMIN_SOURCE);
    ctx.rolesChanged();
    return json(201, roleJson((await ctx.store.roles.get(name))!));
  });

  r.add('PUT', '/roles/{name}', async (req, p) => {
    const role = await ownedRole(p['name']!);
    await ctx.store.roles.put(role.name, scopesOf(await jsonBody(req)), role.source);
    ctx.rolesChanged();
    return json(200, roleJson((await ctx.store.roles.get(role.name))!));
  });

  r.add('DELETE', '/roles/{name}', async (_req, p) => {
    const role = await ownedRole(p['name']!);
    if (role.name === ADMIN_ROLE) throw conflict(`the ${ADMIN_ROLE} role cannot be deleted`);
    await ctx.store.roles.delete(role.name);
    ctx.rolesChanged();
    return empty(204);
  });
}
