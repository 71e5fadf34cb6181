import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { startSluice } from '../../helpers/sluice.js';
import { apiToml, API_DIR } from '../../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../../helpers/backends.js';
import { request as kmRequest } from '../../fixtures/keymanager-harness.js';
import type { RegistryChangedEvent, TokenRevokedEvent } from '../../../engine/events/event-bus.js';
import { ADMIN, adminClient, apiBody, introspect, startNodeOn, tokenRequest } from './node.js';

/**
 * The admin API end to end on one node, then again after a restart on the same home: what it wrote is
 * still there and still served. `conf` picks the store (SQLite by default, PostgreSQL in its own test).
 */
export async function adminApiFlow(t: Test, conf: Record<string, unknown> = {}): Promise<void> {
  const backend = await echoBackend(t);
  const s = await startSluice(t, conf, {
    [`${API_DIR}/from-file.toml`]: apiToml({ name: 'FromFile', context: '/fromfile', production: `${backend.url}/file`, verbs: ['GET'] }),
  });
  const https = `https://127.0.0.1:${s.home.ports.servletHttps}`;
  const admin = adminClient(https);
  const changes: RegistryChangedEvent['kind'][] = [];
  s.node.bus.subscribe('registry.changed', (e) => { changes.push(e.kind); });

  // ---- the door itself
  const spec = await kmRequest(`${https}${ADMIN}/openapi.json`);
  t.equal(spec.status, 200, 'the OpenAPI document needs no credentials');
  t.equal(spec.json.openapi, '3.0.3');
  t.ok(spec.json.paths['/apis/{apiId}/lifecycle'], 'it documents the lifecycle path');
  const anonymous = await kmRequest(`${https}${ADMIN}/apis`);
  t.equal(anonymous.status, 401);
  t.match(anonymous.headers['www-authenticate'], /^Basic realm=/);
  t.equal((await adminClient(https, 'admin', 'wrong').get(`${ADMIN}/apis`)).status, 401, 'a wrong password');
  t.equal((await adminClient(`http://127.0.0.1:${s.home.ports.servletHttp}`).get(`${ADMIN}/apis`)).status, 403, 'not on the plain HTTP port');
  t.equal((await admin.get(`${ADMIN}/nothing-here`)).status, 404);
  t.equal((await admin.del(`${ADMIN}/apis`)).status, 405);

  // ---- APIs and their lifecycle, seen by the gateway at once
  const bad = await admin.post(`${ADMIN}/apis`, { name: 'Bad', context: '/bad', version: '1.0.0', resources: [] });
  t.equal(bad.status, 400);
  t.match(bad.json.description, /at least one \[\[resources\]\]/, 'validated with the API file rules');
  t.equal((await admin.post(`${ADMIN}/apis`, { ...apiBody('Bad', '/bad', backend.url), version: 'a b' })).status, 400);
  const created = await admin.post(`${ADMIN}/apis`, apiBody('Echo', '/echo', `${backend.url}/v1`));
  t.equal(created.status, 201, created.text);
  t.equal(created.json.id, 'Echo:1.0.0');
  t.equal(created.json.lifecycle_state, 'CREATED', 'a new API starts CREATED');
  t.equal(created.json.source, 'store');
  t.equal((await request(s.url('/echo/1.0.0/x'))).status, 404, 'a CREATED API is not served');
  const t0 = Date.now();
  const published = await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle`, { action: 'publish' });
  t.same(published.json, { id: 'Echo:1.0.0', action: 'publish', previous_state: 'CREATED', lifecycle_state: 'PUBLISHED' });
  const served = await request(s.url('/echo/1.0.0/x?a=1'));
  t.equal(served.status, 200, 'served as soon as the write returns');
  t.ok(Date.now() - t0 < 1000, 'within a second of the write');
  t.equal((served.json as SeenRequest).url, '/v1/x?a=1');
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('Echo', '/echo2', backend.url))).status, 409, 'the same name and version twice');
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('Other', '/echo', backend.url))).status, 409, 'the same context and version twice');
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('Clash', '/fromfile', backend.url))).status, 409, 'a context an API file serves');

  const updated = await admin.put(`${ADMIN}/apis/Echo:1.0.0`, apiBody('Echo', '/echo', `${backend.url}/v2`));
  t.equal(updated.status, 200, updated.text);
  t.equal(updated.json.lifecycle_state, 'PUBLISHED', 'an update keeps the lifecycle state');
  t.equal(((await request(s.url('/echo/1.0.0/x'))).json as SeenRequest).url, '/v2/x', 'the new endpoint at once');
  t.equal((await admin.put(`${ADMIN}/apis/Echo:1.0.0`, { ...apiBody('Echo', '/echo', backend.url), version: '2.0.0' })).status, 400, 'the body may not rename it');

  t.equal((await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle?action=retire`)).status, 409, 'retire needs DEPRECATED first');
  t.equal((await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle`, { action: 'fly' })).status, 400);
  // Action names that every object inherits (test/fixtures/attacks/object-keys.json) are unknown actions too.
  for (const action of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    const r = await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle`, { action });
    t.equal(r.status, 400, `the lifecycle action ${action}: 400`);
    t.match(JSON.stringify(r.json), /unknown lifecycle action/, `the lifecycle action ${action}: said to be unknown`);
  }
  t.equal((await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle`, { action: 'Block' })).json.lifecycle_state, 'BLOCKED');
  const blocked = await request(s.url('/echo/1.0.0/x'));
  t.equal(blocked.status, 503);
  t.equal(faultOf(blocked)?.code, 700700, 'a BLOCKED API answers 700700');
  t.equal((await admin.post(`${ADMIN}/apis/Echo:1.0.0/lifecycle`, { action: 're-publish' })).json.lifecycle_state, 'PUBLISHED');
  t.equal((await request(s.url('/echo/1.0.0/x'))).status, 200);

  const list = await admin.get(`${ADMIN}/apis`);
  // The admin-created Echo, the file's FromFile, and the default home's sample PizzaShackAPI.
  t.same(list.json.list.map((a: { id: string }) => a.id).sort(), ['Echo:1.0.0', 'FromFile:1.0.0', 'PizzaShackAPI:1.0.0']);
  t.equal(list.json.count, 3);
  t.match(list.json.list.find((a: { id: string }) => a.id === 'FromFile:1.0.0'), { source: 'file', lifecycle_state: 'PUBLISHED' }, 'the API files are listed too');
  t.equal((await admin.put(`${ADMIN}/apis/FromFile:1.0.0`, apiBody('FromFile', '/fromfile', backend.url))).status, 409, 'a file API is changed in its file');
  t.equal((await admin.post(`${ADMIN}/apis/FromFile:1.0.0/lifecycle`, { action: 'block' })).status, 409);
  t.equal((await admin.get(`${ADMIN}/apis/Nope:1.0.0`)).status, 404);

  // ---- applications, keys and subscriptions
  const app = await admin.post(`${ADMIN}/applications`, {
    name: 'AdminApp', throttling_policy: '10PerMin',
    keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'], scopes: ['echo:read'] }, { key_type: 'SANDBOX' }],
    subscriptions: [{ api: 'Echo:1.0.0', throttling_policy: 'Gold' }],
  });
  t.equal(app.status, 201, 'application created');
  const prod = app.json.keys.find((k: { key_type: string }) => k.key_type === 'PRODUCTION');
  t.ok(prod.client_id && prod.client_secret, 'the creation answer carries the client id and secret');
  t.equal(app.headers['cache-control'], 'no-store');
  const token = await tokenRequest(https, prod.client_id, prod.client_secret);
  t.equal(token.status, 200, 'the new key gets tokens from the token endpoint');
  const accessToken: string = token.json.access_token;
  const shown = await admin.get(`${ADMIN}/applications/AdminApp`);
  t.equal(shown.status, 200);
  t.notOk(shown.text.includes(prod.client_secret), 'the secret is never shown again');
  t.match(shown.json, { owner: 'admin', throttling_policy: '10PerMin', source: 'admin-api', subscriptions: [{ api: 'Echo:1.0.0', throttling_policy: 'Gold', state: 'UNBLOCKED' }] });
  t.equal((await admin.post(`${ADMIN}/applications`, { name: 'AdminApp' })).status, 409);
  t.equal((await admin.post(`${ADMIN}/applications`, { name: 'bad/name' })).status, 400);

  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions`, { api: 'Nope:1.0.0' })).status, 404, 'a subscription needs an API');
  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions`, { api: 'Echo:1.0.0' })).status, 409, 'one subscription per API');
  const sub = await admin.post(`${ADMIN}/subscriptions`, { application: 'AdminApp', api: 'FromFile:1.0.0', throttling_policy: 'Silver' });
  t.equal(sub.status, 201, sub.text);
  t.same(sub.json, { application: 'AdminApp', api: 'FromFile:1.0.0', throttling_policy: 'Silver', state: 'UNBLOCKED' });
  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0/block`)).json.state, 'BLOCKED');
  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0/block`, { state: 'PROD_ONLY_BLOCKED' })).json.state, 'PROD_ONLY_BLOCKED');
  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0/block`, { state: 'ON_HOLD' })).status, 400);
  t.equal((await admin.post(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0/unblock`)).json.state, 'UNBLOCKED');
  t.equal((await admin.put(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0`, { throttling_policy: 'Bronze' })).json.throttling_policy, 'Bronze');
  t.equal((await admin.del(`${ADMIN}/applications/AdminApp/subscriptions/FromFile:1.0.0`)).status, 204);
  t.equal((await admin.get(`${ADMIN}/subscriptions?application=AdminApp`)).json.count, 1);
  t.equal((await admin.get(`${ADMIN}/applications/PizzaApp`)).json.source, 'file', 'the sample application from its file');
  t.equal((await admin.post(`${ADMIN}/applications/PizzaApp/subscriptions`, { api: 'Echo:1.0.0' })).status, 409, 'a file application is changed in its file');
  t.equal((await admin.del(`${ADMIN}/applications/PizzaApp`)).status, 409);
  t.equal((await admin.del(`${ADMIN}/apis/Echo:1.0.0`)).status, 409, 'an API with subscriptions is not deleted');

  // ---- throttling policies and block conditions
  const gold = await admin.post(`${ADMIN}/throttling/policies/subscription`, { name: 'Gold', requests: 5000, unit_time: 1, time_unit: 'min', burst: { requests: 100, time_unit: 'sec' } });
  t.equal(gold.status, 201, gold.text);
  t.same(gold.json, { level: 'subscription', name: 'Gold', requests: 5000, unit_time: 1, time_unit: 'min', stop_on_quota_reach: true, burst: { requests: 100, time_unit: 'sec' }, source: 'admin-api' });
  t.equal((await admin.post(`${ADMIN}/throttling/policies/subscription`, { name: 'Gold', requests: 1 })).status, 409);
  t.equal((await admin.post(`${ADMIN}/throttling/policies/application`, { name: 'X', requests: 5, time_unit: 'fortnight' })).status, 400);
  t.equal((await admin.post(`${ADMIN}/throttling/policies/custom`, { name: 'C', requests: 5 })).status, 400, 'a custom policy needs key_template');
  t.equal((await admin.post(`${ADMIN}/throttling/policies/galactic`, { name: 'G', requests: 5 })).status, 404);
  t.equal((await admin.post(`${ADMIN}/throttling/policies/advanced`, {
    name: '50KPerMin', requests: 50000, condition_groups: [{ requests: 10, time_unit: 'sec', conditions: [{ type: 'header', name: 'x-tier', value: 'free' }] }],
  })).status, 201);
  t.equal((await admin.put(`${ADMIN}/throttling/policies/subscription/Gold`, { requests: 6000, time_unit: 'min' })).json.requests, 6000);
  const ip = await admin.post(`${ADMIN}/throttling/block-conditions`, { type: 'IP', value: '192.0.2.7' });
  t.equal(ip.status, 201, ip.text);
  t.match(ip.json, { type: 'IP', value: '192.0.2.7', enabled: true, invert: false });
  t.equal((await admin.post(`${ADMIN}/throttling/block-conditions`, { type: 'IP', value: '192.0.2.300' })).status, 400);
  t.equal((await admin.post(`${ADMIN}/throttling/deny-policies`, { type: 'IP_RANGE', value: '198.51.100.0/24' })).status, 201, 'the reference system\'s name works too');
  t.equal((await admin.post(`${ADMIN}/throttling/block-conditions`, { type: 'API', value: 'echo' })).status, 400);
  t.equal((await admin.patch(`${ADMIN}/throttling/block-conditions/${ip.json.id}`, { enabled: false })).json.enabled, false);
  t.equal((await admin.get(`${ADMIN}/throttling/deny-policies`)).json.count, 2);
  t.same((await s.node.store!.policies.list()).map((p) => `${p.level}/${p.name}`), ['advanced/50KPerMin', 'subscription/Gold'], 'kept in the store for the throttling engine');
  t.ok(changes.includes('apis') && changes.includes('applications') && changes.includes('policies'), 'every write published registry.changed');

  // ---- a restart on the same home: everything is still there and still served
  const stillActive = (await introspect(https, accessToken)).json.active;
  t.equal(stillActive, true);
  await s.stop();
  const node2 = await startNodeOn(t, s.home);
  const revoked: TokenRevokedEvent[] = [];
  node2.bus.subscribe('token.revoked', (e) => { revoked.push(e); });
  t.equal((await request(s.url('/echo/1.0.0/x'))).status, 200, 'the admin API\'s API is served after the restart');
  t.match((await admin.get(`${ADMIN}/apis/Echo:1.0.0`)).json, { lifecycle_state: 'PUBLISHED', endpoints: { production: `${backend.url}/v2` } });
  t.match((await admin.get(`${ADMIN}/applications/AdminApp`)).json, { subscriptions: [{ api: 'Echo:1.0.0', throttling_policy: 'Gold' }] });
  t.equal((await admin.get(`${ADMIN}/throttling/policies/subscription/Gold`)).json.requests, 6000);
  t.equal((await admin.get(`${ADMIN}/throttling/block-conditions/${ip.json.id}`)).json.enabled, false);
  t.equal((await introspect(https, accessToken)).json.active, true, 'the token issued before the restart');

  // ---- deleting an application revokes its tokens
  t.equal((await admin.del(`${ADMIN}/applications/AdminApp`)).status, 204);
  t.equal((await introspect(https, accessToken)).json.active, false, 'its token is revoked');
  t.ok(revoked.some((e) => e.consumerKey === prod.client_id), 'the gateways are told (token.revoked)');
  t.equal((await tokenRequest(https, prod.client_id, prod.client_secret)).status, 401, 'its key is gone');
  t.equal((await admin.del(`${ADMIN}/apis/Echo:1.0.0`)).status, 204);
  t.equal((await request(s.url('/echo/1.0.0/x'))).status, 404, 'undeployed at once');
  t.equal((await admin.del(`${ADMIN}/throttling/policies/subscription/Gold`)).status, 204);
  t.equal((await admin.del(`${ADMIN}/throttling/block-conditions/${ip.json.id}`)).status, 204);
  await node2.stop();
  const logs = path.join(s.home.dir, 'repository/logs');
  for (const f of fs.readdirSync(logs)) {
    const content = fs.readFileSync(path.join(logs, f), 'utf8');
    t.notOk(content.includes(prod.client_secret), `${f} holds no client secret`);
    t.notOk(content.includes(accessToken), `${f} holds no access token`);
  }
}
