import t from 'tap';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_TARGET_RULES, normalizeGeneral, normalizePath, TargetRefusal, type NormalizedTarget,
} from '../../../transport/front-door/request-target.js';
import type { TargetRules } from '../../../conf/views/front-door.js';
import { prng } from '../../helpers/prng.js';

interface Case {
  readonly raw: string;
  readonly rules?: Partial<TargetRules>;
  readonly path?: string;
  readonly minDepth?: number;
  readonly refusal?: keyof typeof TargetRefusal;
  readonly source: string;
  readonly note?: string;
}

const CASES = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../fixtures/front-door/normalise-cases.json', import.meta.url)), 'utf8')) as Case[];

const fresh = (): NormalizedTarget => ({ refusal: -1, path: 'stale', minDepth: -2, detail: 'stale' });

function rulesOf(c: Case): TargetRules {
  return { ...DEFAULT_TARGET_RULES, ...c.rules };
}

const ALL_RULES: TargetRules[] = [];
for (const escapedSlash of ['reject', 'keep'] as const) {
  for (const backslash of ['reject', 'slash'] as const) {
    for (const pathParameters of ['reject', 'strip'] as const) {
      for (const mergeSlashes of [true, false]) ALL_RULES.push({ escapedSlash, backslash, pathParameters, mergeSlashes });
    }
  }
}

t.test('each case of normalise-cases.json gives its path and minDepth, or its refusal', async (t) => {
  const out = fresh();
  const general = fresh();
  for (const c of CASES) {
    const what = `${JSON.stringify(c.raw)}${c.rules ? ' ' + JSON.stringify(c.rules) : ''} (${c.source})`;
    normalizePath(c.raw, rulesOf(c), out);
    if (c.refusal !== undefined) {
      t.same({ refusal: out.refusal, path: out.path, minDepth: out.minDepth }, { refusal: TargetRefusal[c.refusal], path: '', minDepth: -1 }, `${what}: ${c.refusal}`);
      t.ok(out.detail.length > 0, `${what}: the refusal says why`);
    } else {
      t.same({ refusal: out.refusal, path: out.path, minDepth: out.minDepth, detail: out.detail }, { refusal: 0, path: c.path, minDepth: c.minDepth, detail: '' }, `${what} -> ${c.path}`);
    }
    normalizeGeneral(c.raw, rulesOf(c), general);
    t.same(general, out, `${what}: the general path agrees`);
  }
});

t.test('the cases cover every refusal, every rule value and both the fast and general paths', async (t) => {
  const refusals = new Set(CASES.map((c) => c.refusal).filter((r) => r !== undefined));
  for (const name of Object.keys(TargetRefusal)) if (name !== 'NONE') t.ok(refusals.has(name as keyof typeof TargetRefusal), `a case refused ${name}`);
  const has = (k: keyof TargetRules, v: unknown): boolean => CASES.some((c) => c.rules?.[k] === v);
  t.ok(has('escapedSlash', 'keep') && has('backslash', 'slash') && has('pathParameters', 'strip') && has('mergeSlashes', false), 'every non-default rule value');
  t.ok(CASES.some((c) => c.minDepth !== undefined && c.minDepth >= 0) && CASES.some((c) => c.minDepth === -1), 'paths with and without ..');
  for (const c of CASES) t.ok(typeof c.source === 'string' && c.source.length > 0, `${JSON.stringify(c.raw)} names its source`);
});

t.test('the caller\'s object is reused and fully rewritten', async (t) => {
  const out = fresh();
  normalizePath('/a/%zz', DEFAULT_TARGET_RULES, out);
  t.equal(out.refusal, TargetRefusal.BAD_ENCODING);
  normalizePath('/a/b/../c', DEFAULT_TARGET_RULES, out);
  t.same(out, { refusal: 0, path: '/a/c', minDepth: 1, detail: '' }, 'a success after a refusal clears detail');
  normalizePath('/a', DEFAULT_TARGET_RULES, out);
  t.same(out, { refusal: 0, path: '/a', minDepth: -1, detail: '' }, 'the fast path resets minDepth');
  normalizePath('/../a', DEFAULT_TARGET_RULES, out);
  t.same({ ...out, detail: '' }, { refusal: TargetRefusal.ABOVE_ROOT, path: '', minDepth: -1, detail: '' }, 'a refusal clears path and minDepth');
});

t.test('the query and long paths are the caller\'s business: a long clean path comes back as it is', async (t) => {
  const out = fresh();
  const long = '/seg'.repeat(2000);
  normalizePath(long, DEFAULT_TARGET_RULES, out);
  t.equal(out.path, long);
  const deep = '/a'.repeat(4000) + '/..'.repeat(4000);
  normalizePath(deep, DEFAULT_TARGET_RULES, out);
  t.same({ path: out.path, minDepth: out.minDepth }, { path: '/', minDepth: 0 }, '4000 segments climbed back down to the root');
  normalizePath(deep + '/..', DEFAULT_TARGET_RULES, out);
  t.equal(out.refusal, TargetRefusal.ABOVE_ROOT, 'and one more is above it');
});

// ---------------------------------------------------------------------------------------------------------
// A reference written another way: whole-string rewrites in the order RFC 3986 describes, the §5.2.4
// algorithm as the RFC writes it (an input and an output buffer), and TextDecoder for UTF-8. It answers only
// "refused or not, and which path"; which refusal is the table's job.

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function removeDotSegments(input: string): { out: string; climbed: boolean } {
  let out = '';
  let climbed = false;
  const pop = (): void => {
    if (out === '') climbed = true;
    out = out.slice(0, Math.max(0, out.lastIndexOf('/')));
  };
  while (input !== '') {
    if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) { input = input.slice(3); pop(); }
    else if (input === '/..') { input = '/'; pop(); }
    else {
      const next = input.indexOf('/', 1);
      out += next < 0 ? input : input.slice(0, next);
      input = next < 0 ? '' : input.slice(next);
    }
  }
  return { out, climbed };
}

function reference(raw: string, rules: TargetRules): string | null {
  let s = raw;
  if (s.includes('\\')) {
    if (rules.backslash === 'reject') return null;
    s = s.replaceAll('\\', '/');
  }
  if (s.includes(';')) {
    if (rules.pathParameters === 'reject') return null;
    s = s.replace(/;[^/]*/g, '');
  }
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return null;
  const escapes = [...s.matchAll(/(?:%[0-9A-Fa-f]{2})+/g)];
  for (const m of escapes) {
    const bytes = Buffer.from(m[0].replaceAll('%', ''), 'hex');
    if (bytes.some((b) => b < 0x20 || b === 0x7f)) return null;
    if (rules.escapedSlash === 'reject' && bytes.some((b) => b === 0x2f || b === 0x5c)) return null;
    try { utf8.decode(bytes); } catch { return null; }
  }
  s = s.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => {
    const ch = String.fromCharCode(parseInt(h, 16));
    return UNRESERVED.test(ch) ? ch : '%' + h.toUpperCase();
  });
  if (rules.mergeSlashes) s = s.replace(/\/{2,}/g, '/');
  const r = removeDotSegments(s);
  return r.climbed ? null : r.out === '' ? '/' : r.out;
}


// '/' and '.' weighted up, so that dot-segments are common.
const ALPHABET = ['/', '/', '/', '/', '.', '.', '.', '.', '%', '2', 'e', 'E', 'f', 'F', '5', 'c', ';', 'a', '\\', '~'];
const ESCAPE = /%([0-9A-Fa-f]{2})/g;

t.test('20,000 seeded random paths under every rule set: the invariants hold and the reference agrees', async (t) => {
  const SEED = 17;
  const next = prng(SEED);
  const out = fresh();
  const again = fresh();
  const general = fresh();
  let accepted = 0;
  let refused = 0;
  let climbed = 0;
  const failures: string[] = [];
  const fail = (msg: string): void => { if (failures.length < 20) failures.push(msg); };
  for (let n = 0; n < 20_000; n++) {
    const len = 1 + Math.floor(next() * 16);
    let raw = '/';
    for (let k = 0; k < len; k++) raw += ALPHABET[Math.floor(next() * ALPHABET.length)];
    for (const rules of ALL_RULES) {
      const what = `${JSON.stringify(raw)} ${JSON.stringify(rules)} (seed ${SEED}, case ${n})`;
      normalizePath(raw, rules, out);
      normalizeGeneral(raw, rules, general);
      if (general.refusal !== out.refusal || general.path !== out.path || general.minDepth !== out.minDepth) fail(`${what}: fast and general paths differ`);
      const want = reference(raw, rules);
      if (out.refusal !== TargetRefusal.NONE) {
        refused++;
        if (out.path !== '' || out.minDepth !== -1 || out.detail === '') fail(`${what}: a refusal left a path, a depth or no detail`);
        if (want !== null) fail(`${what}: refused (${out.detail}) but the reference gives ${want}`);
        continue;
      }
      accepted++;
      if (out.minDepth >= 0) climbed++;
      const p = out.path;
      if (want !== p) fail(`${what}: ${p}, the reference gives ${want}`);
      if (p.charCodeAt(0) !== 0x2f) fail(`${what}: ${p} does not start with /`);
      if (p.split('/').some((s) => s === '.' || s === '..')) fail(`${what}: ${p} has a dot-segment`);
      if (rules.mergeSlashes && p.includes('//')) fail(`${what}: ${p} has //`);
      if (p.includes('\\') || p.includes(';')) fail(`${what}: ${p} has a raw \\ or ;`);
      for (const m of p.matchAll(ESCAPE)) {
        const h = m[1]!;
        if (h !== h.toUpperCase()) fail(`${what}: ${p} has a lower-case escape`);
        if (UNRESERVED.test(String.fromCharCode(parseInt(h, 16)))) fail(`${what}: ${p} has an escaped unreserved character`);
        if (rules.escapedSlash === 'reject' && (h === '2F' || h === '5C')) fail(`${what}: ${p} has an escaped slash`);
      }
      normalizePath(p, rules, again);
      if (again.refusal !== 0 || again.path !== p || again.minDepth !== -1) fail(`${what}: not idempotent: ${p} -> ${again.path || again.detail}`);
    }
  }
  t.same(failures, [], 'no invariant broken');
  // The generator must reach both outcomes, or the invariants above say nothing.
  const total = accepted + refused;
  t.ok(accepted > total / 10 && refused > total / 10, `both accepted (${accepted}) and refused (${refused}) paths`);
  t.ok(climbed >= 1000, `paths with a resolved '..' (${climbed})`);
});
