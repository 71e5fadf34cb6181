import { HttpError, type ServletRequest } from '../servlet/index.js';
import { basicCredentials } from '../keymanager/client-auth.js';
import { OAuthError } from '../keymanager/errors.js';
import { ADMIN_ROLE, type UserDirectory } from '../keymanager/users.js';

/**
 * HTTP Basic as an administrator (a user of the user store with the admin role: the super admin of
 * [super_admin] by default), for the admin REST API and the internal endpoints. A wrong or missing
 * credential is 401 with a Basic challenge; a user without the role is 403. Failed logins back off like
 * the token endpoint's (429 with Retry-After); hashing at its bound is 503.
 */
export async function requireAdmin(req: ServletRequest, users: UserDirectory, realm: string): Promise<string> {
  const challenge = { 'www-authenticate': `Basic realm="${realm}"` };
  let basic: { id: string; secret: string } | undefined;
  try { basic = basicCredentials(req.header('authorization')); } catch { throw new HttpError(401, 'malformed HTTP Basic credentials', 'SLUICE_SERVLET_HTTP', challenge); }
  if (!basic) throw new HttpError(401, 'HTTP Basic authentication as an administrator is required', 'SLUICE_SERVLET_HTTP', challenge);
  const from = users.backoff.addressOf(req.remoteAddress, req.header('x-forwarded-for'));
  let user;
  try {
    user = await users.login(basic.id, basic.secret, from);
  } catch (err) {
    if (err instanceof OAuthError) throw new HttpError(err.status, err.description, 'SLUICE_SERVLET_HTTP', err.headers);
    throw err;
  }
  if (!user) throw new HttpError(401, 'invalid credentials', 'SLUICE_SERVLET_HTTP', challenge);
  if (!user.roles.includes(ADMIN_ROLE)) throw new HttpError(403, `the user ${user.username} does not have the ${ADMIN_ROLE} role`);
  return user.username;
}

/** The admin API and the internal endpoints are served on the HTTPS port only. */
export function requireHttps(req: ServletRequest): void {
  if (!req.secure) throw new HttpError(403, 'this API is served on the HTTPS servlet port only');
}
