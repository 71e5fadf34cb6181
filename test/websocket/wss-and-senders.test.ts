import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import https from 'node:https';
import type net from 'node:net';
import { WebSocketServer } from 'ws';
import { generateSelfSignedStore } from '../../transport/tls/self-signed.js';
import { loadKeyMaterial } from '../../transport/tls/key-store.js';
import { startSluice } from '../helpers/sluice.js';
import { API_DIR } from '../helpers/home.js';
import { wsOpen, nextMessages, wsApiToml, wsBackend } from '../helpers/websockets.js';

/** A wss:// echo backend with a self-signed certificate for localhost; `ca` is its certificate (PEM file). */
async function wssBackend(t: Tap.Test): Promise<{ url: string; ca: string; sni: string[] }> {
  const tmp = fs.mkdtempSync('/tmp/sluice-wss-');
  t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
  generateSelfSignedStore(path.join(tmp, 'be.p12'), 'pw', 'localhost');
  const mat = loadKeyMaterial({ file: path.join(tmp, 'be.p12'), type: 'PKCS12', password: 'pw', keyPassword: undefined });
  const ca = path.join(tmp, 'ca.pem');
  fs.writeFileSync(ca, mat.certChainPem);
  const server = https.createServer({ key: mat.keyPem, cert: mat.certChainPem });
  const wss = new WebSocketServer({ server });
  const sni: string[] = [];
  wss.on('connection', (ws, req) => {
    sni.push(String((req.socket as import('node:tls').TLSSocket).servername));
    ws.on('message', (m: Buffer, isBinary: boolean) => ws.send(m, { binary: isBinary }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { for (const c of wss.clients) c.terminate(); server.closeAllConnections(); server.close(() => r()); }));
  return { url: `wss://localhost:${(server.address() as net.AddressInfo).port}`, ca, sni };
}

const open = (name: string, url: string) => ({ [`${API_DIR}/${name}.toml`]: wsApiToml({ name, context: `/${name.toLowerCase()}`, production: url, authType: 'None' }) });

t.test('wss:// backends: trusted through [transport.wss] sender.trust_store', async (t) => {
  const be = await wssBackend(t);
  const s = await startSluice(t, { transport: { wss: { 'sender.enable': true, 'sender.trust_store.location': be.ca, 'sender.trust_store.password': 'unused' } } }, open('Sec', be.url));
  const o = await wsOpen(`ws://127.0.0.1:${s.home.ports.http}/sec/1.0.0`);
  t.ok(o.ws, `open (${o.status ?? ''} ${o.body ?? o.error ?? ''})`);
  o.ws!.send('over tls');
  const [m] = await nextMessages(o.ws!, 1);
  t.equal(m![0].toString(), 'over tls', 'relayed to a wss:// backend');
  t.same(be.sni, ['localhost'], 'SNI sent');
  o.ws!.close();
});

t.test('wss:// backends: the pass-through sender trust store serves when [transport.wss] has none; untrusted fails with 101503', async (t) => {
  const be = await wssBackend(t);
  const trusted = await startSluice(t, { transport: { passthru_https: { 'sender.trust_store.file_name': be.ca, 'sender.trust_store.type': 'PEM' } } }, open('Sec', be.url));
  let o = await wsOpen(`ws://127.0.0.1:${trusted.home.ports.http}/sec/1.0.0`);
  t.ok(o.ws, 'trusted through [transport.passthru_https] sender.trust_store');
  o.ws?.close();
  const untrusted = await startSluice(t, {}, open('Sec', be.url));
  o = await wsOpen(`ws://127.0.0.1:${untrusted.home.ports.http}/sec/1.0.0`);
  t.equal(o.status, 503, 'a certificate nobody trusts: 503');
  t.match(o.body, /101503/);
});

t.test('[transport.ws] sender.enable = false turns ws:// backends off; two io threads serve sessions', async (t) => {
  const be = await wsBackend(t);
  const off = await startSluice(t, { transport: { ws: { 'sender.enable': false } } }, open('Plain', be.url));
  const o = await wsOpen(`ws://127.0.0.1:${off.home.ports.http}/plain/1.0.0`);
  t.equal(o.status, 503, 'disabled sender: 503');
  t.match(o.body, /101503/);
  t.match(o.body, /ws sender is disabled/);
  t.equal(be.handshakes.length, 0, 'the backend was not contacted');

  const two = await startSluice(t, { passthru_http: { io_threads_per_reactor: 2 } }, open('Plain', be.url));
  const clients = await Promise.all(Array.from({ length: 16 }, () => wsOpen(`ws://127.0.0.1:${two.home.ports.http}/plain/1.0.0`)));
  t.ok(clients.every((c) => c.ws), '16 sessions open');
  const echoes = await Promise.all(clients.map(async (c, i) => {
    const p = nextMessages(c.ws!, 1);
    c.ws!.send(`s${i}`);
    return (await p)[0]![0].toString();
  }));
  t.same(echoes, clients.map((_, i) => `s${i}`), 'each session relays its own messages');
  for (const c of clients) c.ws!.close();
});
