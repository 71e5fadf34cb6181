import path from 'node:path';
import { DeclarativeFileError, Fields, readTomlFile } from '../../registry/toml-file.js';
import { isSecretHash } from '../secret-hash.js';
import { setMember } from '../../../mediation/members.js';

/** A user as a users file declares it: a clear password (hashed before it reaches the store) or a scrypt hash. */
export interface DeclaredUser {
  readonly username: string;
  readonly password?: string;
  readonly passwordHash?: string;
  readonly roles: readonly string[];
  readonly claims: Readonly<Record<string, string>>;
}

export interface DeclaredRole {
  readonly name: string;
  readonly scopes: readonly string[];
}

export interface UsersFile {
  readonly file: string;
  readonly roles: readonly DeclaredRole[];
  readonly users: readonly DeclaredUser[];
}

/** User and role names: what the admin API accepts too. */
export const NAME = /^[A-Za-z0-9._@+-]{1,128}$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * One `<home>/repository/deployment/server/users/*.toml` (docs/tokens.md, Users and roles):
 *
 *     [[role]]
 *     name = "menu-manager"
 *     scopes = ["menu:write"]
 *     [[user]]
 *     username = "alice"
 *     password = "..."            # or password_hash = "scrypt$..."
 *     roles = ["menu-manager"]
 *     [user.claims]
 *     email = "alice@example.com"
 */
export function readUsersFile(file: string): UsersFile {
  const doc = readTomlFile(file);
  const f = new Fields(file);
  for (const k of Object.keys(doc)) if (k !== 'role' && k !== 'user') throw new DeclarativeFileError(file, `unknown field "${k}" (a users file holds [[role]] and [[user]] tables)`);
  const roles = f.tables(doc, 'role').map((r, i) => {
    const rf = f.nested(`role[${i}]`);
    const name = rf.string(r, 'name', true);
    if (!NAME.test(name)) throw new DeclarativeFileError(file, `role[${i}].name "${name}": letters, digits and . _ @ + - (128 at most)`);
    const scopes = rf.strings(r, 'scopes');
    for (const s of scopes) if (!SCOPE.test(s)) throw new DeclarativeFileError(file, `role[${i}].scopes: "${s}" is not a scope (RFC 6749 §3.3)`);
    return { name, scopes };
  });
  const users = f.tables(doc, 'user').map((u, i) => {
    const uf = f.nested(`user[${i}]`);
    const username = uf.string(u, 'username', true);
    if (!NAME.test(username)) throw new DeclarativeFileError(file, `user[${i}].username "${username}": letters, digits and . _ @ + - (128 at most)`);
    const password = uf.string(u, 'password');
    const passwordHash = uf.string(u, 'password_hash');
    if ((password === undefined) === (passwordHash === undefined)) throw new DeclarativeFileError(file, `user[${i}] needs one of password and password_hash`);
    if (password !== undefined && password.length === 0) throw new DeclarativeFileError(file, `user[${i}].password must not be empty`);
    if (passwordHash !== undefined && !isSecretHash(passwordHash)) throw new DeclarativeFileError(file, `user[${i}].password_hash is not a scrypt hash (scrypt$N$r$p$salt$hash)`);
    const claimsTable = uf.table(u, 'claims') ?? {};
    const claims: Record<string, string> = {};
    for (const [k, v] of Object.entries(claimsTable)) {
      if (typeof v !== 'string' && typeof v !== 'boolean') throw new DeclarativeFileError(file, `user[${i}].claims.${k} must be a string`);
      setMember(claims, k, String(v));
    }
    return { username, ...(password !== undefined ? { password } : {}), ...(passwordHash !== undefined ? { passwordHash } : {}), roles: uf.strings(u, 'roles'), claims };
  });
  return { file: path.resolve(file), roles, users };
}
