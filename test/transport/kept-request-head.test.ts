import t from 'tap';
import { buildBackendHead, composeBackendHead, HeaderRules, type HeaderRulesSettings, type HeaderSource, type HeaderTarget } from '../../transport/header-rules.js';
import { BodyMode } from '../../transport/sender/sender-handler.js';

// The backend request head is kept with every input it was made from (transport/kept-request-head.ts):
// whatever the call before it on the thread asked, each head must be the one made anew from its own
// inputs. Each step below changes one input of the previous call (or none), in a seeded random walk.

const settings = (o: Partial<HeaderRulesSettings> = {}): HeaderRulesSettings => ({
  userAgentPreserve: false, serverPreserve: false, disableKeepAlive: false, warnOnHttp500: [],
  excludeFromClientResponse: [], excludeFromBackendRequest: [], ...o,
});
const RULES = [new HeaderRules(settings()), new HeaderRules(settings({ userAgentPreserve: true, disableKeepAlive: true })), new HeaderRules(settings({ excludeFromBackendRequest: ['x-b'] }))];

interface Input { src: HeaderSource; target: HeaderTarget; rules: HeaderRules; mode: BodyMode; length: number }

const CHOICES = {
  method: ['GET', 'POST', 'PUT'],
  resourcePath: ['/', '/a', '/b', '/a/'],
  query: ['', 'q=1', 'q=2'],
  clientIp: ['127.0.0.1', '127.0.0.2', '::1'],
  secure: [false, true],
  reqHeaders: [['host', 'gw'], ['host', 'gw', 'x-a', '1'], ['host', 'gw', 'x-a', '2'], ['host', 'gw', 'x-b', '1'], ['host', 'other'],
    ['host', 'gw', 'x-forwarded-for', '203.0.113.1'], ['host', 'gw', 'connection', 'x-a', 'x-a', '1'], ['host', 'gw', 'user-agent', 'curl']],
  extraBackendHeaders: [[], ['x-jwt-assertion', 'e30'], ['x-jwt-assertion', 'e31']],
  removedBackendHeaders: [[], ['x-a'], ['authorization']],
  basePath: ['', '/base', '/other'],
  hostHeader: ['127.0.0.1:1', '127.0.0.1:2'],
  absolutePrefix: ['', 'http://127.0.0.1:1'],
  proxyAuthorizationLine: ['', 'proxy-authorization: Basic eDp5\r\n'],
  rules: RULES,
  mode: [BodyMode.NONE, BodyMode.CONTENT_LENGTH, BodyMode.CHUNKED],
  length: [0, 5, 7],
} as const;
type Key = keyof typeof CHOICES;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

function input(v: Record<Key, unknown>): Input {
  // Fresh arrays and strings each call, as the parser and the phases make them.
  const fresh = (x: unknown): never => (Array.isArray(x) ? x.map((s: string) => `${s}`) : typeof x === 'string' ? `${x}` : x) as never;
  return {
    src: { method: fresh(v.method), path: '/p', query: fresh(v.query), reqHeaders: fresh(v.reqHeaders), clientIp: fresh(v.clientIp), secure: v.secure as boolean,
      resourcePath: fresh(v.resourcePath), extraBackendHeaders: fresh(v.extraBackendHeaders), removedBackendHeaders: fresh(v.removedBackendHeaders) },
    target: { basePath: v.basePath as string, hostHeader: v.hostHeader as string, absolutePrefix: v.absolutePrefix as string, proxyAuthorizationLine: v.proxyAuthorizationLine as string },
    rules: v.rules as HeaderRules, mode: v.mode as BodyMode, length: v.length as number,
  };
}

t.test('a kept head is the head made anew from the same inputs, step after step', async (t) => {
  const next = random(20261128);
  const keys = Object.keys(CHOICES) as Key[];
  const v = Object.fromEntries(keys.map((k) => [k, CHOICES[k][0]])) as Record<Key, unknown>;
  let mismatches = 0;
  const changed = new Set<Key>();
  for (let step = 0; step < 4000; step++) {
    if (next() < 0.8) {
      const k = keys[Math.floor(next() * keys.length)]!;
      const options = CHOICES[k] as readonly unknown[];
      v[k] = options[Math.floor(next() * options.length)];
      changed.add(k);
    }
    const x = input(v);
    const kept = buildBackendHead(x.src, x.target, x.rules, x.mode, x.length);
    const made = composeBackendHead(x.src, x.target, x.rules, x.mode, x.length);
    if (kept !== made) { mismatches++; if (mismatches < 5) t.equal(kept, made, `step ${step}: ${JSON.stringify(v)}`); }
  }
  t.equal(mismatches, 0, 'every head is its own');
  t.same([...changed].sort(), [...keys].sort(), 'the walk changed every input');
});

t.test('a call that changes its arrays after the head was made does not change the kept head', async (t) => {
  const x = input(Object.fromEntries((Object.keys(CHOICES) as Key[]).map((k) => [k, CHOICES[k][0]])) as Record<Key, unknown>);
  const fields = ['host', 'gw', 'x-a', '1'];
  const src = { ...x.src, reqHeaders: fields };
  const first = buildBackendHead(src, x.target, x.rules, x.mode, x.length);
  fields[3] = '2';
  t.equal(buildBackendHead(src, x.target, x.rules, x.mode, x.length), composeBackendHead(src, x.target, x.rules, x.mode, x.length));
  t.not(first, composeBackendHead(src, x.target, x.rules, x.mode, x.length), 'the field did change the head');
});
