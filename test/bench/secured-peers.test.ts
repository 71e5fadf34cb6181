import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SignJWT } from 'jose';
import { startFastify } from '../../bench/peers/fastify.js';
import { haproxyConfig, startHaproxy } from '../../bench/peers/haproxy.js';
import type { Peer } from '../../bench/peers/peer.js';
import { cleanupAll } from '../../bench/lib/products.js';
import { requireBuild } from '../fixtures/sluice-process.js';
import { freePort } from '../helpers/ports.js';
import { recordingBackend } from '../helpers/recording-backend.js';

/**
 * The secured peers of `npm run bench` (HAProxy with jwt_verify and a stick-table, the fastify stack) do the
 * secured work the comparison claims: they refuse every token of the corpus that is not a valid RS256 token
 * of the key with an exp, and limit calls per client. A peer that let a bad token through would make Sluice
 * look slower than it is.
 */
requireBuild();

const corpus = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../fixtures/bench/jwt-attacks.json'), 'utf8')) as {
  cases: { name: string; make: string; expect: number; source: string }[];
};

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function keys(): { privateKey: crypto.KeyObject; publicPem: string; other: crypto.KeyObject } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string, other };
}

/** The Authorization header for a corpus case; `azp` names the client (each control its own, so no limit is shared). */
async function authorization(make: string, k: ReturnType<typeof keys>, azp: string): Promise<string | undefined> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { azp, sub: 'bench-user' };
  const rs = (alg: 'RS256' | 'RS512', key: crypto.KeyObject, c: Record<string, unknown> = { ...claims, exp: now + 3600 }): Promise<string> =>
    new SignJWT(c).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
  switch (make) {
    case 'valid': return `Bearer ${await rs('RS256', k.privateKey)}`;
    case 'valid-extra-claims': return `Bearer ${await rs('RS256', k.privateKey, { ...claims, exp: now + 3600, iss: 'https://localhost:9443/oauth2/token', aud: 'bench', scope: 'a b' })}`;
    case 'absent': return undefined;
    case 'basic': return `Basic ${Buffer.from('bench-client:bench-secret').toString('base64')}`;
    case 'expired': return `Bearer ${await rs('RS256', k.privateKey, { ...claims, exp: now - 3600 })}`;
    case 'no-exp': return `Bearer ${await rs('RS256', k.privateKey, { ...claims })}`;
    case 'alg-none': return `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now + 3600 })}.`;
    case 'hs256-public-key': {
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims, exp: now + 3600 })}`;
      return `Bearer ${input}.${crypto.createHmac('sha256', k.publicPem).update(input).digest('base64url')}`;
    }
    case 'rs512': return `Bearer ${await rs('RS512', k.privateKey)}`;
    case 'other-key': return `Bearer ${await rs('RS256', k.other)}`;
    case 'bad-signature': {
      const [h, p, s] = (await rs('RS256', k.privateKey)).split('.');
      const sig = Buffer.from(s!, 'base64url');
      sig[10] = sig[10]! ^ 0xff;
      return `Bearer ${h}.${p}.${sig.toString('base64url')}`;
    }
    case 'tampered-payload': {
      const [h, , s] = (await rs('RS256', k.privateKey)).split('.');
      return `Bearer ${h}.${b64({ ...claims, azp: 'someone-else', exp: now + 3600 })}.${s}`;
    }
    case 'two-segments': return `Bearer ${(await rs('RS256', k.privateKey)).split('.').slice(0, 2).join('.')}`;
    case 'garbage': return 'Bearer not-a-token';
    default: throw new Error(`corpus case with unknown make: ${make}`);
  }
}

async function call(url: string, auth: string | undefined): Promise<number> {
  const res = await fetch(url, { headers: auth ? { authorization: auth } : {} });
  await res.arrayBuffer();
  return res.status;
}

t.teardown(cleanupAll);

for (const kind of ['haproxy', 'fastify'] as const) {
  t.test(`${kind}'s secured frontend refuses every bad token of the corpus and limits calls per client`, async (t) => {
    const backend = await recordingBackend(t);
    const k = keys();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-peers-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const pem = path.join(dir, 'key.pem');
    fs.writeFileSync(pem, k.publicPem);
    // A limit of 2 calls a minute per client, so the test can see it trip.
    const peer: Peer = kind === 'haproxy'
      ? await startHaproxy({ threads: 1, passPort: await freePort(), securedPort: await freePort(), upstream: backend.port, publicKeyPem: pem, rateLimit: 2 })
      : await startFastify({ port: await freePort(), upstream: backend.port, workers: 1, publicKeyPem: pem, rateLimit: 2 });
    t.teardown(() => peer.stop());
    let controls = 0;
    for (const [i, c] of corpus.cases.entries()) {
      const status = await call(`${peer.secured!}/x`, await authorization(c.make, k, `client-${i}`));
      t.equal(status, c.expect, `${c.name} (${c.source}): ${status}`);
      if (c.expect === 200) controls++;
    }
    t.equal(backend.seen.length, controls, 'only the controls reached the backend');
    t.ok(backend.seen.every((r) => r.line === 'GET /x HTTP/1.1'), 'with the path after the secured prefix');

    const heavy = await authorization('valid', k, 'heavy');
    t.same([await call(`${peer.secured!}/x`, heavy), await call(`${peer.secured!}/x`, heavy), await call(`${peer.secured!}/x`, heavy)], [200, 200, 429], 'the third call of a client in a minute is over the limit of 2');
    t.equal(await call(`${peer.secured!}/x`, await authorization('valid', k, 'light')), 200, 'another client has its own count');
    t.equal(await call(`${peer.passThrough}/x`, undefined), 200, 'the pass-through side asks for nothing');
  });
}

t.test('the HAProxy configuration the bench writes is valid for haproxy -c at 1 and 2 threads', async (t) => {
  for (const threads of [1, 2]) {
    const cfg = haproxyConfig({ threads, passPort: 1, securedPort: 2, upstream: 3, publicKeyPem: '/k.pem' });
    t.match(cfg, new RegExp(`nbthread ${threads}\\n`));
    t.match(cfg, /jwt_verify\(txn\.alg,"\/k\.pem"\)/);
    t.match(cfg, /track-sc0 var\(txn\.client\)/);
  }
});
