import { XMLParser } from 'fast-xml-parser';
import type { ProxyProfileView, SenderProxyView } from '../../conf/views/passthru.js';
import type { ProxyTarget } from './pool-options.js';

/**
 * Host patterns of the proxy keys: `*` matches every host, `*.example.com` matches sub-domains of
 * example.com (the catalog: a period must precede an asterisk), anything else matches the host exactly
 * (case-insensitive).
 */
export function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.trim().toLowerCase();
  const h = host.toLowerCase();
  if (p === '*') return true;
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

export class ProxyProfileError extends Error {
  readonly code = 'SLUICE_PROXY_PROFILE';
}

/** Parses option 1, the XML-style `proxyProfiles` value. */
export function parseProxyProfilesXml(xml: string): ProxyProfileView[] {
  const doc = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'profile' }).parse(xml) as Record<string, unknown>;
  const root = (doc['profiles'] ?? doc) as Record<string, unknown>;
  const list = (root['profile'] ?? []) as Record<string, unknown>[];
  return list.map((p, i) => {
    const text = (k: string): string | undefined => (p[k] === undefined ? undefined : String(p[k]).trim());
    const host = text('proxyHost');
    const port = Number(text('proxyPort'));
    if (!host || !Number.isInteger(port) || port <= 0) throw new ProxyProfileError(`proxyProfiles: profile ${i + 1} needs proxyHost and proxyPort`);
    return {
      targetHosts: (text('targetHosts') ?? '*').split(',').map((s) => s.trim()).filter(Boolean),
      proxyHost: host,
      proxyPort: port,
      username: text('proxyUserName'),
      password: text('proxyPassword'),
      bypassHosts: (text('bypass') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    };
  });
}

/** Picks the forward proxy for a backend host from the sender keys; null: connect directly. */
export class ProxyRules {
  private readonly profiles: readonly ProxyProfileView[];

  constructor(view: SenderProxyView) {
    // Profiles first (most specific set-up), then the single sender.http.proxyHost.
    this.profiles = [
      ...(view.proxyProfilesXml ? parseProxyProfilesXml(view.proxyProfilesXml) : []),
      ...view.profiles,
      ...(view.proxy ? [view.proxy] : []),
    ];
  }

  select(host: string): ProxyTarget | null {
    for (const p of this.profiles) {
      if (!p.targetHosts.some((t) => hostMatches(t, host))) continue;
      if (p.bypassHosts.some((b) => hostMatches(b, host))) return null;
      return {
        host: p.proxyHost,
        port: p.proxyPort,
        ...(p.username !== undefined ? { authorization: 'Basic ' + Buffer.from(`${p.username}:${p.password ?? ''}`).toString('base64') } : {}),
      };
    }
    return null;
  }
}
