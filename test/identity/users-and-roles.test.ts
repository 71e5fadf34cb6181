import t from 'tap';
import { startSecured } from '../helpers/secured.js';
import { basic, request, waitFor } from '../fixtures/keymanager-harness.js';
import { USERS } from './fixtures.js';

const APP = `name = "RolesApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "roles-client"
client_secret = "roles-secret"
grant_types = ["password", "authorization_code"]
scopes = ["menu:read", "menu:write", "menu:admin"]
callback_url = "https://app.example/cb"
`;


const USERS_FILE = 'repository/deployment/server/users/people.toml';

t.test('users and roles from a users file and the admin API; a user token carries only the scopes its roles allow', async (t) => {
  const s = await startSecured(t, { apps: { roles: APP }, files: { [USERS_FILE]: USERS } });
  const admin = (method: string, p: string, body?: unknown) => request(s.kmUrl(`/api/am/admin/v1${p}`), {
    method, headers: { authorization: basic('admin', 'admin'), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const grant = (username: string, password: string, scope: string) => request(s.kmUrl('/oauth2/token'), {
    method: 'POST', headers: { authorization: basic('roles-client', 'roles-secret'), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password, scope }).toString(),
  });

  const alice = await grant('alice', 'alice-secret-1', 'menu:read menu:write openid email');
  t.equal(alice.status, 200, alice.text);
  t.equal(alice.json.scope, 'menu:read menu:write openid email', 'alice holds menu-manager, which lists menu:write');
  const bob = await grant('bob', 'bob-secret-1', 'menu:read menu:write');
  t.equal(bob.json.scope, 'menu:read', 'menu:write is bound to a role bob lacks; menu:read is bound to none');
  t.equal((await grant('bob', 'wrong', 'menu:read')).json.error, 'invalid_grant');

  const info = await request(s.kmUrl('/oauth2/userinfo'), { headers: { authorization: `Bearer ${alice.json.access_token}` } });
  t.same(info.json, { sub: 'alice', email: 'alice@example.com', email_verified: true }, 'the email scope releases email claims, not the name');

  const users = await admin('GET', '/users');
  t.equal(users.status, 200);
  const listed = users.json.list.find((u: { username: string }) => u.username === 'alice');
  t.same(listed, { username: 'alice', roles: ['menu-manager'], claims: { email: 'alice@example.com', email_verified: 'true', name: 'Alice Liddell' }, source: 'file' });
  t.notMatch(users.text, /scrypt/, 'no password hash is shown');
  t.equal((await admin('PUT', '/users/alice', { roles: [] })).status, 409, 'a file-declared user is changed in its file');
  t.equal((await admin('PUT', '/users/admin', { roles: [] })).status, 409, 'the [super_admin] account is changed in deployment.toml');

  t.equal((await admin('POST', '/roles', { name: 'menu-admin', scopes: ['menu:admin'] })).status, 201);
  const carolMade = await admin('POST', '/users', { username: 'carol', password: 'carol-secret-1', roles: ['menu-admin'], claims: { name: 'Carol' } });
  t.equal(carolMade.status, 201, carolMade.text);
  t.equal(carolMade.json.source, 'admin-api');
  // Claim names named like inherited members (test/fixtures/attacks/object-keys.json) are claims like any other.
  const odd = JSON.parse('{"__proto__":"p","constructor":"c","toString":"t"}') as Record<string, string>;
  t.equal((await admin('POST', '/users', { username: 'dave', password: 'dave-secret-1', claims: odd })).status, 201);
  const dave = (await admin('GET', '/users')).json.list.find((u: { username: string }) => u.username === 'dave') as { claims: Record<string, string> };
  t.same(Object.entries(dave.claims).sort(), [['__proto__', 'p'], ['constructor', 'c'], ['toString', 't']], 'every claim kept, as a claim');
  t.equal((await admin('DELETE', '/users/dave')).status, 204);
  t.equal((await admin('POST', '/users', { username: 'carol', password: 'x' })).status, 409);
  t.equal((await admin('POST', '/users', { username: 'bad name!', password: 'x' })).status, 400);
  const carol = await grant('carol', 'carol-secret-1', 'menu:admin menu:write');
  t.equal(carol.json.scope, 'menu:admin', 'the role created through the admin API binds menu:admin at once');
  t.equal((await grant('alice', 'alice-secret-1', 'menu:admin')).json.scope, 'default', 'menu:admin is now role-bound');
  t.equal((await admin('PUT', '/users/carol', { password: 'carol-secret-2' })).status, 200);
  t.equal((await grant('carol', 'carol-secret-1', 'menu:admin')).json.error, 'invalid_grant', 'the old password stops working');
  t.equal((await grant('carol', 'carol-secret-2', 'menu:admin')).status, 200);
  t.equal((await admin('DELETE', '/users/carol')).status, 204);
  t.equal((await grant('carol', 'carol-secret-2', 'menu:admin')).json.error, 'invalid_grant');
  t.equal((await admin('DELETE', '/users/admin')).status, 409);

  s.home.remove(USERS_FILE);
  await waitFor(async () => (await grant('alice', 'alice-secret-1', 'menu:read')).status === 400, 15000, 'alice to go with her file');
  t.equal((await admin('GET', '/roles/menu-manager')).status, 404, 'the file\'s role went with it');
  t.equal((await admin('GET', '/roles/menu-admin')).status, 200, 'the admin API\'s role stays');
});
