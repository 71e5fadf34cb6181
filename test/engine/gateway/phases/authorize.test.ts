// authorize in-process, over the real GatewaySecurity fed the same shared state the main thread sends: the
// token type the resource allows, the subscription and its state, the scopes, and the key type's endpoint
// (engine/gateway/phases/authorize.ts). The caller comes from a stand-in for authenticate.
import pino from 'pino';
import t from 'tap';
import { AuthorizePhase } from '../../../../engine/gateway/phases/authorize.js';
import { ResolveApiPhase } from '../../../../engine/gateway/phases/resolve-api.js';
import type { TokenFacts } from '../../../../engine/kernel/call.js';
import { PhaseResult } from '../../../../engine/kernel/phase.js';
import { SharedStateReceiver } from '../../../../engine/kernel/shared-state.js';
import { buildAccessSnapshot } from '../../../../engine/security/access-snapshot.js';
import { GatewaySecurity, SecurityState } from '../../../../engine/security/gateway-security.js';
import { ApiHandlerError } from '../../../../errors/index.js';
import { apiDef, deployedApis, resource } from '../../../helpers/deployed.js';
import { inject, phaseOf, testRuntime } from '../../../helpers/inject.js';

const deployed = deployedApis([
  apiDef({ name: 'Shop', context: '/shop', resources: [
    resource('GET', '/items', { authType: 'Application & Application User' }),
    resource('GET', '/mine', { authType: 'Application User' }),
    resource('POST', '/admin', { authType: 'Application & Application User', scopes: ['shop:admin'] }),
  ], endpoints: { production: 'http://127.0.0.1:9/prod' } }),
  apiDef({ name: 'Both', context: '/both', endpoints: { production: 'http://127.0.0.1:9/p', sandbox: 'http://127.0.0.1:9/s' },
    resources: [resource('GET', '/x', { authType: 'Application & Application User' })] }),
]);

const app = (name: string, subs: { api: string; state: 'UNBLOCKED' | 'BLOCKED' | 'PROD_ONLY_BLOCKED' | 'ON_HOLD' }[]) => ({
  name, owner: 'admin', throttlingPolicy: 'Unlimited', tokenType: 'JWT' as const, source: 'test',
  keys: [{ keyType: 'PRODUCTION' as const, clientId: `${name}-client`, clientSecretHash: 'x', grantTypes: [], scopes: [] }],
  subscriptions: subs.map((s) => ({ ...s, throttlingPolicy: 'Gold' })),
});
const state = new SharedStateReceiver({
  [SecurityState.ACCESS]: buildAccessSnapshot([
    app('Subscribed', [{ api: 'Shop:1.0.0', state: 'UNBLOCKED' }, { api: 'Both:1.0.0', state: 'UNBLOCKED' }]),
    app('Blocked', [{ api: 'Shop:1.0.0', state: 'BLOCKED' }]),
    app('ProdBlocked', [{ api: 'Both:1.0.0', state: 'PROD_ONLY_BLOCKED' }]),
    app('OnHold', [{ api: 'Shop:1.0.0', state: 'ON_HOLD' }]),
  ], 1),
});
const security = new GatewaySecurity(state, pino({ level: 'silent' }), () => {});
t.teardown(() => security.stop());

function token(application: string, o: Partial<TokenFacts> = {}): TokenFacts {
  return {
    application, subscriber: 'admin', consumerKey: `${application}-client`, keyType: 'PRODUCTION', user: 'admin', userType: 'APPLICATION',
    scopes: [], tokenId: `jti-${application}`, tokenType: 'JWT', applicationTier: 'Unlimited', claims: null, expiresAt: Date.now() + 60_000, ...o,
  };
}

/** resolve-api, then a stand-in for authenticate that sets the caller, then authorize. */
function call(path: string, facts: TokenFacts, method = 'GET') {
  const rt = testRuntime([new ResolveApiPhase(deployed), phaseOf('caller', (c) => { c.token = facts; return PhaseResult.CONTINUE; }), new AuthorizePhase(security)]);
  return inject(rt, { method, path });
}

t.test('a subscribed application goes on with its subscription\'s tier, to the production endpoint', async (t) => {
  const r = call('/shop/1.0.0/items', token('Subscribed'));
  t.ok(r.reachedTerminal);
  t.match(r.call.auth, { application: 'Subscribed', tier: 'Gold' });
  t.equal(r.call.target?.url, 'http://127.0.0.1:9/prod');
});

t.test('no subscription: 900908; blocked: 900907; on hold: 900909', async (t) => {
  t.equal(call('/shop/1.0.0/items', token('Stranger')).fault?.code, ApiHandlerError.RESOURCE_FORBIDDEN.code);
  t.equal(call('/shop/1.0.0/items', token('Blocked')).fault?.code, ApiHandlerError.API_TEMPORARILY_BLOCKED.code);
  t.equal(call('/shop/1.0.0/items', token('OnHold')).fault?.code, ApiHandlerError.SUBSCRIPTION_INACTIVE.code);
});

t.test('PROD_ONLY_BLOCKED blocks a production key and lets a sandbox key through to the sandbox endpoint', async (t) => {
  t.equal(call('/both/1.0.0/x', token('ProdBlocked')).fault?.code, ApiHandlerError.API_TEMPORARILY_BLOCKED.code);
  const sandbox = call('/both/1.0.0/x', token('ProdBlocked', { keyType: 'SANDBOX' }));
  t.ok(sandbox.reachedTerminal);
  t.equal(sandbox.call.target?.url, 'http://127.0.0.1:9/s');
});

t.test('a sandbox key on an API without a sandbox endpoint: 900901 through _sandbox_key_error_', async (t) => {
  const r = call('/shop/1.0.0/items', token('Subscribed', { keyType: 'SANDBOX' }));
  t.equal(r.client.written.status, 401);
  t.match(r.fault, { code: 900901, description: ApiHandlerError.SANDBOX_KEY_ERROR.description });
});

t.test('an application token on a user-only resource: 900905', async (t) => {
  t.equal(call('/shop/1.0.0/mine', token('Subscribed')).fault?.code, ApiHandlerError.INCORRECT_ACCESS_TOKEN_TYPE.code);
  t.ok(call('/shop/1.0.0/mine', token('Subscribed', { userType: 'APPLICATION_USER' })).reachedTerminal);
});

t.test('scopes: none of the resource\'s is 900910 with insufficient_scope; one of them passes', async (t) => {
  const r = call('/shop/1.0.0/admin', token('Subscribed', { scopes: ['shop:read'] }), 'POST');
  t.equal(r.client.written.status, 403);
  t.equal(r.fault?.code, ApiHandlerError.INVALID_SCOPE.code);
  t.match(r.client.written.headers.find(([k]) => k === 'www-authenticate')?.[1], /error="insufficient_scope"/);
  t.ok(call('/shop/1.0.0/admin', token('Subscribed', { scopes: ['shop:admin'] }), 'POST').reachedTerminal);
});

t.test('a token admitted before is decided again when the access, the resource or the key type differ', async (t) => {
  // One phase for all the calls: the phase remembers the last admission of each token.
  const accessOf = (shop: 'UNBLOCKED' | 'BLOCKED', both: 'UNBLOCKED' | 'PROD_ONLY_BLOCKED' = 'UNBLOCKED') =>
    buildAccessSnapshot([app('Subscribed', [{ api: 'Shop:1.0.0', state: shop }, { api: 'Both:1.0.0', state: both }])], 2);
  const own = new SharedStateReceiver({ [SecurityState.ACCESS]: accessOf('UNBLOCKED') });
  const sec = new GatewaySecurity(own, pino({ level: 'silent' }), () => {});
  t.teardown(() => sec.stop());
  const authorize = new AuthorizePhase(sec);
  const facts = token('Subscribed');
  const run = (path: string, f: TokenFacts, method = 'GET') => {
    const rt = testRuntime([new ResolveApiPhase(deployed), phaseOf('caller', (c) => { c.token = f; return PhaseResult.CONTINUE; }), authorize]);
    return inject(rt, { method, path });
  };

  const first = run('/shop/1.0.0/items', facts);
  const second = run('/shop/1.0.0/items', facts);
  t.ok(first.reachedTerminal && second.reachedTerminal);
  t.equal(second.call.auth, first.call.auth, 'the same caller for the same token and tiers');

  t.equal(run('/shop/1.0.0/admin', facts, 'POST').fault?.code, ApiHandlerError.INVALID_SCOPE.code, 'another resource: its scopes are checked');
  t.ok(run('/shop/1.0.0/items', facts).reachedTerminal);

  own.apply(SecurityState.ACCESS, accessOf('BLOCKED'));
  t.equal(run('/shop/1.0.0/items', facts).fault?.code, ApiHandlerError.API_TEMPORARILY_BLOCKED.code, 'a new access view: the subscription is blocked now');
  own.apply(SecurityState.ACCESS, accessOf('UNBLOCKED'));
  t.ok(run('/shop/1.0.0/items', facts).reachedTerminal, 'and unblocked again');

  const sandboxFacts = token('Subscribed', { keyType: 'SANDBOX' });
  t.equal(run('/both/1.0.0/x', sandboxFacts).call.target?.url, 'http://127.0.0.1:9/s');
  t.equal(run('/both/1.0.0/x', sandboxFacts).call.target?.url, 'http://127.0.0.1:9/s', 'a remembered sandbox admission still goes to the sandbox');
  t.equal(run('/both/1.0.0/x', facts).call.target?.url, 'http://127.0.0.1:9/p', 'a production key on the same resource: production');
  own.apply(SecurityState.ACCESS, accessOf('UNBLOCKED', 'PROD_ONLY_BLOCKED'));
  t.equal(run('/both/1.0.0/x', facts).fault?.code, ApiHandlerError.API_TEMPORARILY_BLOCKED.code, 'production blocked after the change');
  t.ok(run('/both/1.0.0/x', sandboxFacts).reachedTerminal, 'the sandbox key still passes');
});
