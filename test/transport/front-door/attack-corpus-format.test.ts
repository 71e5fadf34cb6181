import t from 'tap';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TARGET_RULES, normalizePath, TargetRefusal, type NormalizedTarget } from '../../../transport/front-door/request-target.js';

/**
 * The attack corpus is data (test/fixtures/front-door/README.md); the runner that sends it to a gateway is
 * elsewhere. This checks the data itself, so that a hand edit cannot leave a case the runner would misread:
 * the format, the share of controls, and, for request-target.json, that each expectation agrees with the
 * normaliser under the default rules.
 */

interface BackendRequest { readonly line: string; readonly body?: string }
interface Expect {
  readonly status: number | number[];
  readonly faultCode?: number;
  readonly backend: BackendRequest[];
  readonly responses?: number[];
  readonly closed?: boolean;
}
interface Case {
  readonly id: string;
  readonly source: string;
  readonly request?: string;
  readonly chunks?: string[];
  readonly expect: Expect;
  readonly control: boolean;
  readonly note?: string;
  readonly fin?: number;
}

const dir = fileURLToPath(new URL('../../fixtures/front-door/', import.meta.url));
const load = (name: string): Case[] => JSON.parse(fs.readFileSync(dir + name, 'utf8')) as Case[];
const FILES = { 'request-target.json': 60, 'framing.json': 60, 'limits.json': 6, 'keep-alive.json': 30 } as const;
/** The door's own refusals: answered, then the connection is closed (the contract's table). */
const DOOR_STATUSES = new Set([400, 405, 414, 417, 431, 501, 505]);
const KEYS = new Set(['id', 'source', 'request', 'chunks', 'expect', 'control', 'note', 'fin']);
const EXPECT_KEYS = new Set(['status', 'faultCode', 'backend', 'responses', 'closed']);

t.test('every corpus file is well formed, names its sources and mixes in at least a third of controls', async (t) => {
  const ids = new Set<string>();
  for (const [name, least] of Object.entries(FILES)) {
    const cases = load(name);
    t.ok(cases.length >= least, `${name}: ${cases.length} cases (at least ${least})`);
    const controls = cases.filter((c) => c.control).length;
    t.ok(controls * 3 >= cases.length, `${name}: ${controls} of ${cases.length} are controls`);
    const problems: string[] = [];
    for (const c of cases) {
      const p = (msg: string): void => { problems.push(`${c.id}: ${msg}`); };
      if (!/^[a-z0-9-]+$/.test(c.id)) p('an id of lower-case words and dashes');
      if (ids.has(c.id)) p('a duplicate id'); else ids.add(c.id);
      for (const k of Object.keys(c)) if (!KEYS.has(k)) p(`an unknown key ${k}`);
      if (typeof c.source !== 'string' || c.source.length < 5) p('no source');
      if (typeof c.control !== 'boolean') p('control is not a boolean');
      if ((c.request === undefined) === (c.chunks === undefined)) p('exactly one of request and chunks');
      const bytes = c.request ?? c.chunks?.join('') ?? '';
      if (bytes.length === 0 || c.chunks?.some((s) => typeof s !== 'string')) p('no bytes');
      if ([...bytes].some((ch) => ch.charCodeAt(0) > 0xff)) p('a char above 0xFF (requests are sent latin1, one byte per char)');
      const e = c.expect;
      for (const k of Object.keys(e)) if (!EXPECT_KEYS.has(k)) p(`an unknown expect key ${k}`);
      const statuses = Array.isArray(e.status) ? e.status : [e.status];
      if (statuses.length === 0 || statuses.some((s) => !Number.isInteger(s) || s < 200 || s > 599)) p('status must be final statuses');
      if (Array.isArray(e.status) && e.faultCode !== undefined) p('a faultCode belongs to a single status');
      if (!Array.isArray(e.backend)) p('backend is not an array');
      for (const b of e.backend ?? []) {
        if (!/^[A-Z]+ \/base(\/\S*)? HTTP\/1\.1$/.test(b.line) && !/^[A-Z]+ \/base\?\S* HTTP\/1\.1$/.test(b.line)) p(`backend line ${JSON.stringify(b.line.slice(0, 60))} is not an origin-form HTTP/1.1 line under /base`);
        if (b.body !== undefined && typeof b.body !== 'string') p('a body is not a string');
      }
      if (e.responses !== undefined && (e.responses.length < 2 || !statuses.includes(e.responses[0]!))) p('responses lists every answer, the first being status');
      if (e.closed !== undefined && e.closed !== true) p('closed is true or absent');
      if (c.fin !== undefined && (!Number.isInteger(c.fin) || c.fin < 0 || c.fin > 2000)) p('fin is the milliseconds before the half-close, 0 to 2000');
      if (statuses.every((s) => DOOR_STATUSES.has(s)) && e.responses === undefined) {
        if (e.backend.length !== 0) p('a refusal at the door reaches no backend');
        if (e.closed !== true) p('a refusal at the door closes the connection');
      }
      if (c.control && statuses.some((s) => DOOR_STATUSES.has(s)) && e.responses === undefined) p('a control refused at the door');
    }
    t.same(problems, [], `${name}: every case`);
  }
});

/** The method and target of the first request line (the bytes up to the first CRLF). */
function requestLine(c: Case): { method: string; target: string } | null {
  const bytes = c.request ?? c.chunks!.join('');
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]\r\n/.exec(bytes);
  return m ? { method: m[1]!, target: m[2]! } : null;
}

t.test('request-target.json agrees with the normaliser under the default rules', async (t) => {
  const out: NormalizedTarget = { refusal: 0, path: '', minDepth: -1, detail: '' };
  const problems: string[] = [];
  let checked = 0;
  for (const c of load('request-target.json')) {
    const rl = requestLine(c);
    if (rl === null || rl.target === '*' || /^http:\/\/[^/]*@/i.test(rl.target)) continue;
    const target = rl.target.replace(/^https?:\/\/[^/?#]*/i, '');
    const q = target.indexOf('?');
    const raw = q < 0 ? target : target.slice(0, q);
    const query = q < 0 ? '' : target.slice(q + 1);
    normalizePath(raw === '' ? '/' : raw, DEFAULT_TARGET_RULES, out);
    const e = c.expect;
    const statuses = Array.isArray(e.status) ? e.status : [e.status];
    checked++;
    if (e.backend.length === 1) {
      const rest = out.path.startsWith('/trav/v1') ? out.path.slice('/trav/v1'.length) : null;
      const want = rest === null ? null : `${rl.method} /base${rest === '/' ? '' : rest}${query ? `?${query}` : ''} HTTP/1.1`;
      if (out.refusal !== TargetRefusal.NONE || want !== e.backend[0]!.line) problems.push(`${c.id}: the backend line ${e.backend[0]!.line}, the normaliser gives ${out.path || out.detail}`);
    } else if (e.faultCode === 900902) {
      if (out.path !== '/trav/v1/admin' && out.path !== '/trav/v1/admin/') problems.push(`${c.id}: judged as /admin, the normaliser gives ${out.path || out.detail}`);
      if (out.minDepth >= 0 && out.minDepth < 2) problems.push(`${c.id}: judged, but it left the context (minDepth ${out.minDepth})`);
    } else if (statuses.length === 1 && statuses[0] === 400 && out.refusal === TargetRefusal.NONE) {
      // Accepted by the normaliser, refused all the same: it left the API context, or a '#' hides in the query.
      const climbed = out.minDepth >= 0 && out.minDepth < 2 && out.path.startsWith('/trav/v1');
      if (!climbed && !query.includes('#')) problems.push(`${c.id}: expected 400, but the normaliser accepts ${raw} as ${out.path}`);
    }
  }
  t.ok(checked >= 60, `${checked} cases checked`);
  t.same(problems, [], 'every expectation matches the normaliser');
});
