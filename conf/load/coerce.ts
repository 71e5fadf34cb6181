import { parseDuration } from '../duration.js';
import { closest } from '../suggest.js';
import { FAILED, isPlainObject, type Leaf, type Report } from './leaf.js';

/** A written (and resolved) value read as its catalog type, checked against the allowed values and bounds. */
export function coerce(leaf: Leaf, raw: unknown, report: Report): unknown {
  const spec = leaf.spec!;
  const bad = (expected: string): typeof FAILED => {
    report('error', leaf.path, `invalid value ${show(raw)}`, expected);
    return FAILED;
  };
  let v: unknown;
  switch (spec.type) {
    case 'boolean':
      if (typeof raw === 'boolean') v = raw;
      else if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) v = raw.trim().toLowerCase() === 'true';
      else return bad('true or false');
      break;
    case 'integer': {
      const n = toNumber(raw);
      if (n === undefined || !Number.isInteger(n)) return bad('an integer');
      v = n;
      break;
    }
    case 'float': {
      const n = toNumber(raw);
      if (n === undefined) return bad('a number');
      v = n;
      break;
    }
    case 'duration': {
      const ms = parseDuration(raw);
      if (ms === undefined) return bad('a duration such as 180000, "3m", "15 minutes" or "2s"');
      v = ms;
      break;
    }
    case 'string':
      if (typeof raw === 'string') v = raw;
      else if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint') v = String(raw);
      else return bad('a string');
      break;
    case 'string[]':
      if (Array.isArray(raw) && raw.every((x) => typeof x === 'string' || typeof x === 'number')) v = raw.map(String);
      else if (typeof raw === 'string') v = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      else return bad('a list of strings');
      break;
    case 'integer[]':
      if (Array.isArray(raw) && raw.every((x) => Number.isInteger(toNumber(x)))) v = raw.map((x) => toNumber(x)!);
      else return bad('a list of integers');
      break;
    case 'table':
      if (isPlainObject(raw) || Array.isArray(raw)) v = raw;
      else return bad('a table of key-value pairs');
      break;
  }
  if (spec.allowed && typeof v === 'string') {
    const ok = spec.caseInsensitive
      ? spec.allowed.some((a) => a.toLowerCase() === (v as string).toLowerCase())
      : spec.allowed.includes(v);
    if (!ok) {
      const near = closest(v, spec.allowed);
      report('error', leaf.path, `invalid value ${show(v)}`, `one of ${spec.allowed.join(', ')}`, near);
      return FAILED;
    }
  }
  if (spec.min !== undefined && typeof v === 'number' && v < spec.min) return bad(`a number of at least ${spec.min}`);
  if (spec.port && typeof v === 'number' && (v < 1 || v > 65535)) return bad('a port number from 1 to 65535');
  return v;
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(raw)) return Number(raw);
  return undefined;
}

function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
