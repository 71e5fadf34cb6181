import { ApiHandlerError } from '../../../errors/api-handler.js';
import crypto from 'node:crypto';
import type { GatewaySecurity } from '../../security/gateway-security.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';

/** Parses what a load balancer puts in the certificate header: PEM (maybe URL-encoded) or base64 DER. */
export function certificateFromHeader(value: string, encoded: boolean): crypto.X509Certificate | null {
  let v = value.trim();
  try {
    if (encoded || v.includes('%')) v = decodeURIComponent(v);
    if (!v.includes('-----BEGIN')) {
      const b64 = v.replace(/\s+/g, '');
      return new crypto.X509Certificate(Buffer.from(b64, 'base64'));
    }
    // Some balancers fold the PEM onto one line with spaces for newlines.
    const body = v.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    return new crypto.X509Certificate(`-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
  } catch {
    return null;
  }
}

/**
 * Mutual TLS ended at a load balancer ([apimgt.mutual_ssl] enable_client_validation): the client
 * certificate arrives in certificate_header and must be one of the API's client_certificates (900901).
 * APIs without client certificates are not affected.
 */
export class MutualSslPhase implements GatewayPhase {
  readonly name = 'mutual-ssl';
  private readonly allowed = new WeakMap<readonly string[], Set<string>>();

  constructor(private readonly security: GatewaySecurity) {}

  private fingerprints(list: readonly string[]): Set<string> {
    let set = this.allowed.get(list);
    if (!set) {
      set = new Set();
      for (const pem of list) { try { set.add(new crypto.X509Certificate(pem).fingerprint256); } catch { /* refused at deploy */ } }
      this.allowed.set(list, set);
    }
    return set;
  }

  onRequest(ctx: Call): PhaseResult {
    const s = this.security.settings;
    const certs = ctx.api?.def.clientCertificates;
    if (s === null || !s.mutualSsl.enabled || certs === undefined || certs.length === 0) return PhaseResult.CONTINUE;
    const value = ctx.header(s.mutualSsl.header);
    const cert = value === undefined ? null : certificateFromHeader(value, s.mutualSsl.encoded);
    if (cert === null || !this.fingerprints(certs).has(cert.fingerprint256) || new Date(cert.validTo).getTime() < Date.now()) {
      ctx.raise(ApiHandlerError.INVALID_CREDENTIALS, { description: 'Invalid Credentials. The client certificate is missing, unknown or expired' });
      return PhaseResult.STOP;
    }
    ctx.removeBackendHeader(s.mutualSsl.header);
    return PhaseResult.CONTINUE;
  }
}
