import net from 'node:net';

/**
 * Client addresses for block conditions, IP conditions and trusted proxies. An IPv4 address is a uint32;
 * an IPv6 address a 128-bit bigint. An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, how a dual-stack
 * socket reports IPv4 peers) is the IPv4 address, so that `192.0.2.0/24` matches it.
 */
export type Ip = { readonly v: 4; readonly n: number } | { readonly v: 6; readonly n: bigint };

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

function v4ToNumber(text: string): number {
  const p = text.split('.');
  return (((Number(p[0]) << 24) >>> 0) + (Number(p[1]) << 16) + (Number(p[2]) << 8) + Number(p[3])) >>> 0;
}

function v6ToBigint(text: string): bigint {
  let t = text;
  const zone = t.indexOf('%');
  if (zone >= 0) t = t.slice(0, zone);
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const dot = t.lastIndexOf('.');
  if (dot >= 0) {
    const colon = t.lastIndexOf(':');
    const n = v4ToNumber(t.slice(colon + 1));
    t = `${t.slice(0, colon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = t.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(parseInt(g || '0', 16));
  return n;
}

/** Parses an address (no brackets, no port); null when it is not one. */
export function parseIp(text: string): Ip | null {
  const kind = net.isIP(text);
  if (kind === 4) return { v: 4, n: v4ToNumber(text) };
  if (kind === 6) {
    const m = MAPPED.exec(text);
    if (m) return { v: 4, n: v4ToNumber(m[1]!) };
    return { v: 6, n: v6ToBigint(text) };
  }
  return null;
}

/** An X-Forwarded-For entry may carry a port (`192.0.2.7:5678`, `[2001:db8::1]:443`) or quotes. */
export function parseForwardedEntry(entry: string): Ip | null {
  let t = entry.trim();
  if (t.startsWith('"') && t.endsWith('"')) t = t.slice(1, -1);
  if (t.startsWith('[')) {
    const end = t.indexOf(']');
    return end > 0 ? parseIp(t.slice(1, end)) : null;
  }
  const colon = t.indexOf(':');
  if (colon > 0 && colon === t.lastIndexOf(':') && t.includes('.')) t = t.slice(0, colon);
  return parseIp(t);
}

/**
 * One address, a CIDR (`10.0.0.0/8`, `2001:db8::/32`) or an inclusive range (`10.0.0.1-10.0.0.99`), IPv4 or
 * IPv6. A range never mixes the two families; an address of the other family never matches.
 */
export class IpRange {
  private constructor(readonly text: string, readonly v: 4 | 6, private readonly lo: number | bigint, private readonly hi: number | bigint) {}

  /** Throws an Error that says what is wrong with the text. */
  static parse(text: string): IpRange {
    const t = text.trim();
    const slash = t.indexOf('/');
    if (slash >= 0) {
      const base = parseIp(t.slice(0, slash));
      const bitsText = t.slice(slash + 1);
      if (!base || !/^\d{1,3}$/.test(bitsText)) throw new Error(`"${text}" is not a CIDR such as 10.0.0.0/8 or 2001:db8::/32`);
      const bits = Number(bitsText);
      if (base.v === 4) {
        // `::ffff:10.0.0.0/104` is an IPv4-mapped CIDR: count its bits from the IPv4 part.
        const mappedBits = net.isIP(t.slice(0, slash)) === 6 ? bits - 96 : bits;
        if (mappedBits < 0 || mappedBits > 32) throw new Error(`"${text}": prefix length out of range`);
        const mask = mappedBits === 0 ? 0 : (0xffffffff << (32 - mappedBits)) >>> 0;
        const lo = (base.n & mask) >>> 0;
        return new IpRange(t, 4, lo, (lo | (~mask >>> 0)) >>> 0);
      }
      if (bits > 128) throw new Error(`"${text}": prefix length out of range`);
      const all = (1n << 128n) - 1n;
      const mask = bits === 0 ? 0n : (all << BigInt(128 - bits)) & all;
      const lo = base.n & mask;
      return new IpRange(t, 6, lo, lo | (~mask & all));
    }
    const dash = t.indexOf('-');
    if (dash >= 0) {
      const a = parseIp(t.slice(0, dash).trim());
      const b = parseIp(t.slice(dash + 1).trim());
      if (!a || !b) throw new Error(`"${text}" is not a range such as 10.0.0.1-10.0.0.99`);
      if (a.v !== b.v) throw new Error(`"${text}" mixes IPv4 and IPv6`);
      if (a.n > b.n) throw new Error(`"${text}": the first address is above the last`);
      return new IpRange(t, a.v, a.n, b.n);
    }
    const one = parseIp(t);
    if (!one) throw new Error(`"${text}" is not an IP address`);
    return new IpRange(t, one.v, one.n, one.n);
  }

  contains(ip: Ip): boolean {
    if (ip.v !== this.v) return false;
    return ip.n >= this.lo && ip.n <= this.hi;
  }
}

/** A list of ranges (trusted proxies). */
export class IpSet {
  constructor(readonly ranges: readonly IpRange[]) {}

  static parse(list: readonly string[]): IpSet {
    return new IpSet(list.map((s) => IpRange.parse(s)));
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  contains(ip: Ip): boolean {
    for (const r of this.ranges) if (r.contains(ip)) return true;
    return false;
  }
}

/**
 * The address a call is throttled and blocked by. The TCP peer, unless the peer is a trusted proxy: then
 * X-Forwarded-For is read from the right (the entry the trusted proxy appended) to the left, skipping
 * trusted proxies, and the first untrusted address is the client. Entries left of it were written by the
 * client itself and are not believed. A malformed entry stops the walk at the address seen before it.
 * When every entry is trusted, the left-most one counts.
 */
export function throttleAddress(peer: Ip | null, forwardedFor: string | undefined, trusted: IpSet): Ip | null {
  if (peer === null || forwardedFor === undefined || trusted.empty || !trusted.contains(peer)) return peer;
  const entries = forwardedFor.split(',');
  let last: Ip = peer;
  for (let i = entries.length - 1; i >= 0; i--) {
    const ip = parseForwardedEntry(entries[i]!);
    if (ip === null) return last;
    if (!trusted.contains(ip)) return ip;
    last = ip;
  }
  return last;
}
