/**
 * The read-only LDAP user store against a real OpenLDAP server started by the test: users and groups in a
 * directory sign in with the password grant and the authorization code flow, get roles from their groups
 * (scopes bound to those roles) and claims from their attributes; the database users (the super admin)
 * still work. Attacks: LDAP filter injection in the user name, the empty-password anonymous bind, an
 * unknown user and a wrong password answered alike.
 */
import t from 'tap';
import { startTestKeyManager, request } from '../fixtures/keymanager-harness.js';
import { startSlapd, BASE_DN, ROOT_DN, ROOT_PW } from '../fixtures/slapd.js';
import { BrowserSession, pkcePair } from '../helpers/authorize-client.js';
import { WEB_APP, REDIRECT } from './fixtures.js';
import { escapeFilterValue } from '../../engine/keymanager/user-store/ldap-user-store.js';

const LDIF = `dn: ${BASE_DN}
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,${BASE_DN}
objectClass: organizationalUnit
ou: people

dn: ou=groups,${BASE_DN}
objectClass: organizationalUnit
ou: groups

dn: uid=carol,ou=people,${BASE_DN}
objectClass: inetOrgPerson
uid: carol
cn: Carol Danvers
sn: Danvers
givenName: Carol
mail: carol@example.org
userPassword: carol-ldap-pass

dn: uid=dave,ou=people,${BASE_DN}
objectClass: inetOrgPerson
uid: dave
cn: Dave Lister
sn: Lister
userPassword: dave-ldap-pass

dn: cn=menu-manager,ou=groups,${BASE_DN}
objectClass: groupOfNames
cn: menu-manager
member: uid=carol,ou=people,${BASE_DN}
`;

t.test('users and groups from OpenLDAP', async (t) => {
  const ldap = await startSlapd(t, LDIF);
  const k = await startTestKeyManager(t, {
    apps: { 'web.toml': WEB_APP },
    conf: {
      user_store: {
        type: 'read_only_ldap',
        properties: {
          TenantManager: 'org.wso2.carbon.user.core.tenant.CommonHybridLDAPTenantManager',
          ConnectionURL: ldap.url, ConnectionName: ROOT_DN, ConnectionPassword: ROOT_PW,
          UserSearchBase: `ou=people,${BASE_DN}`, UserEntryObjectClass: 'inetOrgPerson', UserNameAttribute: 'uid',
          UserNameSearchFilter: '(&(objectClass=inetOrgPerson)(uid=?))', DisplayNameAttribute: 'cn',
          ReadGroups: true, GroupSearchBase: `ou=groups,${BASE_DN}`, GroupEntryObjectClass: 'groupOfNames',
          GroupNameAttribute: 'cn', MembershipAttribute: 'member',
        },
      },
    },
  });
  await k.km.store.roles.put('menu-manager', ['menu:write'], 'admin-api');
  const grant = (username: string, password: string, scope = 'menu:read menu:write openid profile email') =>
    k.token({ grant_type: 'password', username, password, scope }, 'web-client', 'web-secret');

  const carol = await grant('carol', 'carol-ldap-pass');
  t.equal(carol.status, 200, carol.text);
  t.equal(carol.json.scope, 'menu:read menu:write openid profile email', 'the LDAP group menu-manager is a role binding menu:write');
  const dave = await grant('dave', 'dave-ldap-pass');
  t.equal(dave.json.scope, 'menu:read openid profile email', 'dave is in no group');
  const info = await request(`${k.base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${carol.json.access_token}` } });
  t.same(info.json, { sub: 'carol', preferred_username: 'carol', email: 'carol@example.org', given_name: 'Carol', family_name: 'Danvers', name: 'Carol Danvers' });
  t.equal((await grant('admin', 'admin', 'openid')).status, 200, 'the database users (the super admin) still sign in');

  const wrong = await grant('carol', 'nope');
  const unknown = await grant('zed', 'nope');
  t.same(wrong.json, unknown.json, 'a wrong password and an unknown user get the same answer');
  t.equal(wrong.json.error, 'invalid_grant');
  const attacks: [string, string, string][] = [
    ['the empty password (an anonymous bind succeeds: RFC 4513 §5.1.2)', 'carol', ''],
    ['a wildcard user name', '*', 'carol-ldap-pass'],
    ['filter injection closing the filter', 'carol)(uid=*', 'carol-ldap-pass'],
    ['filter injection with an OR', '*)(|(uid=*', 'carol-ldap-pass'],
    ['a NUL byte', 'carol\u0000', 'carol-ldap-pass'],
    ['a DN as the user name', `uid=carol,ou=people,${BASE_DN}`, 'carol-ldap-pass'],
  ];
  for (const [name, user, password] of attacks) {
    const r = await grant(user, password);
    t.equal(r.json.error, 'invalid_grant', `${name} [OWASP LDAP injection; RFC 4515]`);
  }
  t.equal(escapeFilterValue('a*b(c)d\\e'), 'a\\2ab\\28c\\29d\\5ce');

  const browser = new BrowserSession(k.base);
  const { verifier, challenge } = pkcePair();
  const { location } = await browser.flow({ client_id: 'web-client', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' }, 'carol', 'carol-ldap-pass');
  const tok = await k.token({ grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier }, 'web-client', 'web-secret');
  t.equal(tok.status, 200, 'an LDAP user signs in on the authorization page');
});

t.test('an LDAP server that is down: 503 temporarily_unavailable, the database users still sign in', async (t) => {
  const k = await startTestKeyManager(t, {
    conf: { user_store: { type: 'read_only_ldap', properties: { TenantManager: 'x', ConnectionURL: 'ldap://127.0.0.1:9', UserSearchBase: BASE_DN, LDAPConnectionTimeout: 2000 } } },
  });
  const r = await k.token({ grant_type: 'password', username: 'carol', password: 'x' });
  t.equal(r.status, 503, r.text);
  t.equal(r.json.error, 'temporarily_unavailable');
  t.equal((await k.token({ grant_type: 'password', username: 'admin', password: 'admin' })).status, 200);
});
