import type { HttpResponse } from 'uWebSockets.js';

// The last IPv4 peer and its text: a gateway sees the same few peers (load balancers, clients behind a
// NAT) call after call. uWS's own text form formats with sprintf on every call (2.5% of a proxied call).
let lastIp4 = -1;
let lastIp4Text = '';

/** The TCP peer's address as text (`127.0.0.1`; IPv6 as uWS writes it), for X-Forwarded-For and IP rules. */
export function clientAddress(res: HttpResponse): string {
  const binary = res.getRemoteAddress();
  if (binary.byteLength === 4) {
    const b = new Uint8Array(binary);
    const ip = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
    if (ip !== lastIp4) {
      lastIp4 = ip;
      lastIp4Text = `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
    }
    return lastIp4Text;
  }
  return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
}
