// websocket-upgrade-required in-process: plain HTTP to a WebSocket API is told to upgrade (426) before any
// authentication; handshakes, which carry their terminal step, pass.
import t from 'tap';
import { ResolveApiPhase } from '../../../engine/gateway/phases/resolve-api.js';
import { UpgradeRequiredPhase } from '../../../engine/websocket/upgrade-required-phase.js';
import { GatewayError } from '../../../errors/index.js';
import { apiDef, deployedApis, resource } from '../../helpers/deployed.js';
import { answering, inject, testRuntime } from '../../helpers/inject.js';

const deployed = deployedApis([
  apiDef({ name: 'Chat', context: '/chat', type: 'WS', endpoints: { production: 'ws://127.0.0.1:9' }, resources: [resource('GET', '/*')] }),
  apiDef({ name: 'Pizza', context: '/pizza' }),
]);
const rt = testRuntime([new ResolveApiPhase(deployed), new UpgradeRequiredPhase(), answering(200)]);

t.test('plain HTTP to a WebSocket API: 426 with Upgrade: websocket, code 400', async (t) => {
  const plain = inject(rt, { path: '/chat/1.0.0/room', terminal: null });
  t.equal(plain.client.written.status, 426);
  t.equal(plain.fault?.code, GatewayError.UPGRADE_REQUIRED.code);
  t.match(plain.fault?.description, /Chat:1\.0\.0 is a WebSocket API/);
  t.same(plain.client.written.headers.find(([k]) => k === 'upgrade'), ['upgrade', 'websocket']);
});

t.test('a handshake (a call with its terminal step) and plain HTTP to an HTTP API pass', async (t) => {
  const hs = inject(testRuntime([new ResolveApiPhase(deployed), new UpgradeRequiredPhase()]), { path: '/chat/1.0.0/room' });
  t.ok(hs.reachedTerminal);
  t.equal(inject(rt, { path: '/pizza/1.0.0/menu', terminal: null }).client.written.status, 200);
});
