import fs from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { SourceLocator } from '../../conf/source-locator.js';
import { DeclarativeFileError } from '../registry/toml-file.js';
import type { BlockCondition, ConditionGroup, Quota, ThrottleCondition, ThrottlePolicy } from '../registry/types.js';
import { IpRange } from './ip.js';
import { timeUnitOf } from './windows.js';

/** One policies/*.toml file: throttling policies of every level and block conditions (docs/throttling.md). */
export interface PolicyFile {
  readonly source: string;
  readonly policies: readonly ThrottlePolicy[];
  readonly blockConditions: readonly BlockCondition[];
}

const LEVEL_TABLES = ['subscription', 'application', 'advanced', 'custom'] as const;
const TOP = new Set<string>([...LEVEL_TABLES, 'block_condition']);
const QUOTA_FIELDS = ['requests', 'bandwidth', 'bandwidth_unit', 'unit_time', 'time_unit'];
const FIELDS: Readonly<Record<(typeof LEVEL_TABLES)[number], ReadonlySet<string>>> = {
  subscription: new Set(['name', 'description', 'unlimited', 'stop_on_quota_reach', 'burst', ...QUOTA_FIELDS]),
  application: new Set(['name', 'description', 'unlimited', ...QUOTA_FIELDS]),
  advanced: new Set(['name', 'description', 'unlimited', 'condition_group', ...QUOTA_FIELDS]),
  custom: new Set(['name', 'description', 'key_template', ...QUOTA_FIELDS]),
};
const GROUP_FIELDS = new Set(['description', 'conditions', ...QUOTA_FIELDS]);
const CONDITION_TYPES = ['header', 'query', 'jwt_claim', 'ip', 'ip_range'] as const;
const BLOCK_TYPES = ['USER', 'IP', 'IP_RANGE', 'APPLICATION', 'API'] as const;
const BANDWIDTH_UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
/** Variables a custom policy's key_template may use. */
export const TEMPLATE_VARIABLES = ['$userId', '$apiContext', '$apiVersion', '$apiName', '$appId', '$appOwner', '$clientIp', '$resource', '$keyType'] as const;
const VARIABLE = /\$[A-Za-z]+/g;

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/** Field readers that name the key path and its line. */
class Reader {
  private readonly locator: SourceLocator;
  constructor(readonly file: string, source: string) {
    this.locator = new SourceLocator(source);
  }

  /** Paths the locator knows under another name: `[[advanced.condition_group]]` headers are counted file-wide. */
  private readonly aliases: [string, string][] = [];

  alias(from: string, to: string): void {
    this.aliases.push([from, to]);
  }

  fail(at: string, message: string): never {
    throw new DeclarativeFileError(this.file, `${at}: ${message}`, this.line(at));
  }

  line(at: string): number | undefined {
    for (const [from, to] of this.aliases) {
      if (at === from || at.startsWith(`${from}.`)) {
        const hit = this.locator.lineOf(to + at.slice(from.length));
        if (hit !== undefined) return hit;
      }
    }
    return this.locator.lineOf(at);
  }

  known(t: Table, at: string, allowed: ReadonlySet<string>): void {
    for (const k of Object.keys(t)) {
      if (!allowed.has(k)) this.fail(`${at}.${k}`, `unknown field "${k}" (known: ${[...allowed].join(', ')})`);
    }
  }

  string(t: Table, at: string, name: string, required: true): string;
  string(t: Table, at: string, name: string, required?: false): string | undefined;
  string(t: Table, at: string, name: string, required = false): string | undefined {
    const v = t[name];
    if (v === undefined) {
      if (required) this.fail(`${at}.${name}`, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || (required && v.trim() === '')) this.fail(`${at}.${name}`, `expected a string, got ${JSON.stringify(v)}`);
    return v;
  }

  boolean(t: Table, at: string, name: string, fallback: boolean): boolean {
    const v = t[name];
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    return this.fail(`${at}.${name}`, `expected true or false, got ${JSON.stringify(v)}`);
  }

  positive(t: Table, at: string, name: string, integer: boolean): number | undefined {
    const v = t[name];
    if (v === undefined) return undefined;
    const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      this.fail(`${at}.${name}`, `expected a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(typeof v === 'bigint' ? String(v) : v)}`);
    }
    return n;
  }

  tables(t: Table, at: string, name: string): Table[] {
    const v = t[name];
    if (v === undefined) return [];
    if (Array.isArray(v) && v.every(isTable)) return v as Table[];
    return this.fail(`${at}${at ? '.' : ''}${name}`, `expected [[${at ? `${at}.` : ''}${name}]] tables`);
  }
}

function readQuota(r: Reader, t: Table, at: string): Quota {
  const requests = r.positive(t, at, 'requests', true);
  const bandwidth = r.positive(t, at, 'bandwidth', false);
  if (requests !== undefined && bandwidth !== undefined) r.fail(at, 'give requests or bandwidth, not both');
  if (requests === undefined && bandwidth === undefined) r.fail(at, 'requests (or bandwidth) is required');
  const unitTime = r.positive(t, at, 'unit_time', true) ?? 1;
  const unitText = r.string(t, at, 'time_unit') ?? 'min';
  const timeUnit = timeUnitOf(unitText);
  if (!timeUnit) r.fail(`${at}.time_unit`, `expected one of sec, min, hour, day, got "${unitText}"`);
  if (bandwidth !== undefined) {
    const unitName = (r.string(t, at, 'bandwidth_unit') ?? 'KB').toUpperCase();
    const factor = BANDWIDTH_UNITS[unitName];
    if (factor === undefined) r.fail(`${at}.bandwidth_unit`, `expected one of ${Object.keys(BANDWIDTH_UNITS).join(', ')}, got "${unitName}"`);
    return { bandwidthBytes: Math.round(bandwidth * factor), unitTime, timeUnit };
  }
  if (t['bandwidth_unit'] !== undefined) r.fail(`${at}.bandwidth_unit`, 'only with bandwidth');
  return { requests: requests!, unitTime, timeUnit };
}

function readCondition(r: Reader, t: unknown, at: string): ThrottleCondition {
  if (!isTable(t)) return r.fail(at, 'expected a table such as { type = "header", name = "X-Tier", value = "free" }');
  r.known(t, at, new Set(['type', 'name', 'value', 'invert']));
  const typeText = r.string(t, at, 'type', true);
  const type = CONDITION_TYPES.find((c) => c === typeText.toLowerCase());
  if (!type) r.fail(`${at}.type`, `expected one of ${CONDITION_TYPES.join(', ')}, got "${typeText}"`);
  const value = r.string(t, at, 'value', true);
  const invert = r.boolean(t, at, 'invert', false);
  if (type === 'ip' || type === 'ip_range') {
    if (t['name'] !== undefined) r.fail(`${at}.name`, `a ${type} condition has no name`);
    try {
      const range = IpRange.parse(value);
      if (type === 'ip' && /[/-]/.test(value)) r.fail(`${at}.value`, `"${value}" is a range: use type = "ip_range"`);
      void range;
    } catch (err) {
      if (err instanceof DeclarativeFileError) throw err;
      r.fail(`${at}.value`, (err as Error).message);
    }
    return { type, value, ...(invert ? { invert } : {}) };
  }
  const name = r.string(t, at, 'name', true);
  try {
    new RegExp(`^(?:${value})$`);
  } catch (err) {
    r.fail(`${at}.value`, `not a regular expression: ${(err as Error).message}`);
  }
  return { type, name, value, ...(invert ? { invert } : {}) };
}

function readPolicy(r: Reader, level: (typeof LEVEL_TABLES)[number], t: Table, i: number, groupBase: { n: number }): ThrottlePolicy {
  const at = `${level}[${i}]`;
  r.known(t, at, FIELDS[level]);
  const name = r.string(t, at, 'name', true).trim();
  if (/[\u0000-\u001f]/.test(name)) r.fail(`${at}.name`, 'control characters are not allowed');
  const description = r.string(t, at, 'description');
  const unlimited = level !== 'custom' && r.boolean(t, at, 'unlimited', false);
  const common = { level, name, source: path.resolve(r.file), ...(description ? { description } : {}), ...(r.line(at) !== undefined ? { line: r.line(at)! } : {}) };
  if (unlimited) {
    for (const k of [...QUOTA_FIELDS, 'burst', 'condition_group', 'key_template']) {
      if (t[k] !== undefined) r.fail(`${at}.${k}`, 'an unlimited policy has no quota');
    }
    return { ...common, unlimited: true, quota: { unitTime: 1, timeUnit: 'min' }, stopOnQuotaReach: true };
  }
  const quota = readQuota(r, t, at);
  let burst: ThrottlePolicy['burst'];
  const b = t['burst'];
  if (b !== undefined) {
    if (!isTable(b)) r.fail(`${at}.burst`, 'expected { requests = 100, time_unit = "sec" }');
    r.known(b, `${at}.burst`, new Set(['requests', 'time_unit']));
    const requests = r.positive(b, `${at}.burst`, 'requests', true);
    if (requests === undefined) r.fail(`${at}.burst.requests`, 'is required');
    const unitText = r.string(b, `${at}.burst`, 'time_unit') ?? 'sec';
    const unit = timeUnitOf(unitText);
    if (unit !== 'sec' && unit !== 'min') r.fail(`${at}.burst.time_unit`, `expected sec or min, got "${unitText}"`);
    burst = { requests: requests!, timeUnit: unit };
  }
  const groups: ConditionGroup[] = [];
  for (const [gi, g] of r.tables(t, at, 'condition_group').entries()) {
    // [[advanced.condition_group]] headers are counted across the whole file by the locator.
    const gat = `${at}.condition_group[${gi}]`;
    r.alias(gat, `advanced.condition_group[${groupBase.n++}]`);
    r.known(g, gat, GROUP_FIELDS);
    const conds = g['conditions'];
    if (!Array.isArray(conds) || conds.length === 0) r.fail(gat, 'conditions = [ { type = ..., value = ... }, ... ] is required');
    const conditions = conds.map((c, ci) => readCondition(r, c, `${gat}.conditions[${ci}]`));
    const gq = readQuota(r, g, gat);
    const gd = r.string(g, gat, 'description');
    groups.push({ conditions, quota: gq, ...(gd ? { description: gd } : {}) });
  }
  let keyTemplate: string | undefined;
  if (level === 'custom') {
    keyTemplate = r.string(t, at, 'key_template', true);
    for (const v of keyTemplate.match(VARIABLE) ?? []) {
      if (!(TEMPLATE_VARIABLES as readonly string[]).includes(v)) r.fail(`${at}.key_template`, `unknown variable ${v} (known: ${TEMPLATE_VARIABLES.join(', ')})`);
    }
    if (!VARIABLE.test(keyTemplate)) r.fail(`${at}.key_template`, 'needs at least one variable such as $userId');
    VARIABLE.lastIndex = 0;
  }
  const stopOnQuotaReach = level === 'subscription' ? r.boolean(t, at, 'stop_on_quota_reach', true) : true;
  return {
    ...common,
    quota,
    stopOnQuotaReach,
    ...(burst ? { burst } : {}),
    ...(groups.length ? { conditionGroups: groups } : {}),
    ...(keyTemplate !== undefined ? { keyTemplate } : {}),
  };
}

function readBlock(r: Reader, t: Table, i: number): BlockCondition {
  const at = `block_condition[${i}]`;
  r.known(t, at, new Set(['type', 'value', 'enabled', 'invert', 'description']));
  const typeText = r.string(t, at, 'type', true);
  const type = BLOCK_TYPES.find((b) => b === typeText.toUpperCase());
  if (!type) r.fail(`${at}.type`, `expected one of ${BLOCK_TYPES.join(', ')}, got "${typeText}"`);
  const value = r.string(t, at, 'value', true).trim();
  if (type === 'IP' || type === 'IP_RANGE') {
    try {
      IpRange.parse(value);
    } catch (err) {
      r.fail(`${at}.value`, (err as Error).message);
    }
    if (type === 'IP' && /[/-]/.test(value)) r.fail(`${at}.value`, `"${value}" is a range: use type = "IP_RANGE"`);
  }
  if (type === 'API' && !value.startsWith('/')) r.fail(`${at}.value`, `an API block condition names the API context, such as /pizzashack or /pizzashack/1.0.0; got "${value}"`);
  const invert = r.boolean(t, at, 'invert', false);
  const line = r.line(at);
  return { type, value, enabled: r.boolean(t, at, 'enabled', true), ...(invert ? { invert } : {}), ...(line !== undefined ? { line } : {}), source: path.resolve(r.file) };
}

/** Parses and checks one policy file; every error names the file and, where it can, the line. */
export function parsePolicyFile(text: string, file: string): PolicyFile {
  let doc: Table;
  try {
    doc = parse(text) as Table;
  } catch (err) {
    if (err instanceof TomlError) {
      throw new DeclarativeFileError(file, `TOML syntax error: ${err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '')}`, err.line, err.column);
    }
    throw err;
  }
  const r = new Reader(file, text);
  for (const k of Object.keys(doc)) {
    if (!TOP.has(k)) {
      throw new DeclarativeFileError(file, `${k}: unknown table "${k}" (known: ${[...TOP].map((x) => `[[${x}]]`).join(', ')})`, r.line(k) ?? r.line(`${k}[0]`));
    }
  }
  const policies: ThrottlePolicy[] = [];
  const names = new Map<string, string>();
  const groupBase = { n: 0 };
  for (const level of LEVEL_TABLES) {
    for (const [i, t] of r.tables(doc, '', level).entries()) {
      const p = readPolicy(r, level, t, i, groupBase);
      const id = `${level}:${p.name}`;
      const first = names.get(id);
      if (first) r.fail(`${level}[${i}].name`, `${level} policy "${p.name}" is already defined at ${first}`);
      names.set(id, `line ${p.line ?? '?'}`);
      policies.push(p);
    }
  }
  const blockConditions = r.tables(doc, '', 'block_condition').map((t, i) => readBlock(r, t, i));
  return { source: path.resolve(file), policies, blockConditions };
}

export function readPolicyFile(file: string): PolicyFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new DeclarativeFileError(file, `cannot read: ${(err as Error).message}`);
  }
  return parsePolicyFile(text, file);
}
