import t from 'tap';
import { requireBuild } from '../fixtures/sluice-process.js';
import { request as kmRequest } from '../fixtures/keymanager-harness.js';
import { eventually } from '../helpers/home.js';
import { echoBackend, request, faultOf, type SeenRequest } from '../helpers/backends.js';
import { ADMIN, adminClient, apiBody } from './helpers/node.js';
import { controlPlaneCertificate, controlPlaneConf, logTail, startProcessNode, workerConf, type Node } from './helpers/cluster.js';

requireBuild();

/**
 * docs/operations.md, "Several nodes on one machine": one control plane (api-publisher, with the resident
 * key manager) and two gateway-workers, three `node bin/sluice.js start --home DIR` processes on their own
 * offsets. The workers pull their artifacts over HTTPS (trusting the control plane's certificate), follow
 * its events, register, send heartbeats and deployment acknowledgments.
 */
t.test('two gateway-workers follow one control plane', async (t) => {
  const cert = controlPlaneCertificate(t);
  const backend = await echoBackend(t);
  const cp = await startProcessNode(t, controlPlaneConf(cert.keyStore), 'servlet');
  const admin = adminClient(cp.https);
  t.equal((await admin.get(`${ADMIN}/apis`)).json?.count, 1, `the control plane answers (with the home's sample API)\n${logTail(cp.home)}`);
  // An API before the workers start: they get it with their first pull.
  const early = await admin.post(`${ADMIN}/apis`, apiBody('Early', '/early', `${backend.url}/early`, { lifecycle_state: 'PUBLISHED' }));
  t.equal(early.status, 201, early.text);

  const gw1 = await startProcessNode(t, workerConf(cp.https, cert.trust), 'gateway');
  const gw2 = await startProcessNode(t, workerConf(cp.https, cert.trust), 'gateway');
  const workers: Node[] = [gw1, gw2];
  for (const w of workers) {
    const r = await request(`${w.gw}/early/1.0.0/x`);
    t.equal(r.status, 200, `a worker serves what it pulled at start\n${logTail(w.home)}`);
    t.equal((r.json as SeenRequest).url, '/early/x');
    t.equal((await request(`${w.http}/health/ready`)).status, 200, 'ready once it has its artifacts');
    const health = await request(`${w.http}/api/health-check/v1.0/health`);
    t.equal(health.status, 200);
    t.match(health.json, { checkers: [{ name: 'data_source_health_checker', details: { gateway_replica: { status: 'UP' } } }] }, 'the worker watches its replica');
    t.equal((await kmRequest(`${w.https}${ADMIN}/apis`, { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } })).status, 404, 'no admin API on a worker');
  }

  // ---- an API created through the admin API reaches both workers
  const t0 = Date.now();
  const created = await admin.post(`${ADMIN}/apis`, apiBody('Live', '/live', `${backend.url}/live`, { lifecycle_state: 'PUBLISHED' }));
  t.equal(created.status, 201, created.text);
  for (const w of workers) {
    await eventually(async () => (await request(`${w.gw}/live/1.0.0/x`)).status === 200, `Live on the worker at offset ${w.offset}`, 5000);
  }
  const took = Date.now() - t0;
  t.ok(took < 1500, `both workers serve the new API ${took} ms after the write`);

  // ---- lifecycle and deletion follow too
  t.equal((await admin.post(`${ADMIN}/apis/Live:1.0.0/lifecycle`, { action: 'block' })).status, 200);
  for (const w of workers) {
    await eventually(async () => faultOf(await request(`${w.gw}/live/1.0.0/x`))?.code === 700700, 'the block on every worker', 5000);
  }
  t.equal((await admin.del(`${ADMIN}/apis/Early:1.0.0`)).status, 204);
  for (const w of workers) await eventually(async () => (await request(`${w.gw}/early/1.0.0/x`)).status === 404, 'the deletion on every worker', 5000);
  t.equal((await admin.post(`${ADMIN}/apis/Live:1.0.0/lifecycle`, { action: 'publish' })).status, 200);

  // ---- gateway notification: registered, heartbeats, deployment acknowledgments
  const gws = await eventually(async () => {
    const r = await admin.get(`${ADMIN}/environments/Default/gateways`);
    const list = r.json?.list as { gatewayId: string; status: string; role: string; properties: { httpPort: number }; deployments: { apiId: string; action: string; revision: string }[] }[] | undefined;
    const ok = list?.filter((g) => g.role === 'gateway-worker' && g.status === 'ACTIVE'
      && g.deployments.some((d) => d.apiId === 'Live:1.0.0' && d.action === 'DEPLOY')
      && g.deployments.some((d) => d.apiId === 'Early:1.0.0' && d.action === 'UNDEPLOY'));
    return ok && ok.length === 2 ? ok : undefined;
  }, 'both workers registered with their deployments acknowledged', 8000);
  t.same(gws.map((g) => g.properties.httpPort).sort(), [8280 + gw1.offset, 8280 + gw2.offset].sort());
  const envs = await admin.get(`${ADMIN}/environments`);
  t.match(envs.json.list, [{ name: 'Default', gateways: 2 }]);

  // ---- a worker that stops sending heartbeats expires
  gw2.proc.child.kill('SIGKILL');
  await gw2.proc.exited;
  const expired = await eventually(async () => {
    const list = (await admin.get(`${ADMIN}/gateways`)).json?.list as { properties: { httpPort: number }; status: string }[];
    return list.find((g) => g.properties.httpPort === 8280 + gw2.offset && g.status === 'EXPIRED');
  }, 'the silent worker to expire', 10000);
  t.ok(expired, 'EXPIRED after cleanup.expiry_time without a heartbeat');

  // ---- the control plane goes away: the worker keeps serving; it comes back: the worker follows again
  cp.proc.child.kill('SIGTERM');
  t.equal((await cp.proc.exited).code, 0);
  t.equal((await request(`${gw1.gw}/live/1.0.0/x`)).status, 200, 'serving without its control plane');
  await cp.restart(t);
  const later = await admin.post(`${ADMIN}/apis`, apiBody('Later', '/later', backend.url, { lifecycle_state: 'PUBLISHED' }));
  t.equal(later.status, 201);
  await eventually(async () => (await request(`${gw1.gw}/later/1.0.0/x`)).status === 200, 'the worker to follow the restarted control plane', 25000);
  t.pass('the worker follows the restarted control plane');
  gw1.proc.child.kill('SIGTERM');
  t.equal((await gw1.proc.exited).code, 0, 'a worker stops cleanly');
});

t.test('a gateway-worker whose control plane is down starts from its replica after the configured retries', async (t) => {
  const cert = controlPlaneCertificate(t);
  const backend = await echoBackend(t);
  const cp = await startProcessNode(t, controlPlaneConf(cert.keyStore), 'servlet');
  const admin = adminClient(cp.https);
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('Kept', '/kept', backend.url, { lifecycle_state: 'PUBLISHED' }))).status, 201);
  const gw = await startProcessNode(t, workerConf(cp.https, cert.trust), 'gateway');
  t.equal((await request(`${gw.gw}/kept/1.0.0/x`)).status, 200);
  gw.proc.child.kill('SIGTERM');
  await gw.proc.exited;
  cp.proc.child.kill('SIGTERM');
  await cp.proc.exited;

  const started = Date.now();
  await gw.restart(t);
  const waited = Date.now() - started;
  t.ok(waited >= 3000, `the first pull was retried (500 ms, then x2, 3 retries) before serving: ${waited} ms`);
  t.equal((await request(`${gw.gw}/kept/1.0.0/x`)).status, 200, 'the replica of the last run is served');
  t.ok(await eventually(() => gw.home.logs().some((l) => /retries used up/.test(String(l['msg']))), 'the log says the retries were used up', 5000), 'the log says the retries were used up');
  await cp.restart(t);
  t.equal((await admin.post(`${ADMIN}/apis`, apiBody('Fresh', '/fresh', backend.url, { lifecycle_state: 'PUBLISHED' }))).status, 201);
  await eventually(async () => (await request(`${gw.gw}/fresh/1.0.0/x`)).status === 200, 'the worker to catch up once the control plane is back', 25000);
  t.pass('caught up');
});
