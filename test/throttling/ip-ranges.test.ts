import t from 'tap';
import { IpRange, IpSet, parseIp, parseForwardedEntry, throttleAddress } from '../../engine/throttling/ip.js';

const ip = (s: string) => parseIp(s)!;

t.test('addresses: IPv4, IPv6, IPv4-mapped IPv6', async (t) => {
  t.same(parseIp('192.0.2.7'), { v: 4, n: 0xc0000207 });
  t.same(parseIp('::ffff:192.0.2.7'), { v: 4, n: 0xc0000207 }, 'a dual-stack socket\'s IPv4 peer is the IPv4 address');
  t.same(parseIp('::1'), { v: 6, n: 1n });
  t.same(parseIp('2001:db8::1'), { v: 6, n: (0x20010db8n << 96n) | 1n });
  t.equal(parseIp('300.1.1.1'), null);
  t.equal(parseIp('example.com'), null);
  t.same(parseForwardedEntry(' "[2001:db8::1]:443" '), parseIp('2001:db8::1'));
  t.same(parseForwardedEntry('192.0.2.7:8080'), parseIp('192.0.2.7'));
});

t.test('ranges: CIDR and a-b, both families, edges', async (t) => {
  const c = IpRange.parse('10.1.0.0/16');
  t.ok(c.contains(ip('10.1.0.0')));
  t.ok(c.contains(ip('10.1.255.255')));
  t.notOk(c.contains(ip('10.2.0.0')));
  t.notOk(c.contains(ip('::1')), 'another family never matches');
  t.ok(IpRange.parse('0.0.0.0/0').contains(ip('203.0.113.9')));
  const r = IpRange.parse('192.0.2.10-192.0.2.20');
  t.ok(r.contains(ip('192.0.2.10')));
  t.ok(r.contains(ip('192.0.2.20')));
  t.notOk(r.contains(ip('192.0.2.21')));
  const v6 = IpRange.parse('2001:db8::/32');
  t.ok(v6.contains(ip('2001:db8:ffff::1')));
  t.notOk(v6.contains(ip('2001:db9::1')));
  t.ok(IpRange.parse('2001:db8::1-2001:db8::ff').contains(ip('2001:db8::80')));
  t.ok(IpRange.parse('::ffff:10.0.0.0/104').contains(ip('10.9.9.9')), 'an IPv4-mapped CIDR is the IPv4 one');
  for (const bad of ['10.0.0.0/33', '10.0.0.9-10.0.0.1', '10.0.0.1-::1', 'nope', '1.2.3.4/x']) {
    t.throws(() => IpRange.parse(bad), `refused: ${bad}`);
  }
});

t.test('the throttle address: peer, or X-Forwarded-For walked from the right through trusted proxies', async (t) => {
  const trusted = IpSet.parse(['127.0.0.1', '10.0.0.0/8']);
  const peer = ip('127.0.0.1');
  t.same(throttleAddress(ip('203.0.113.1'), '192.0.2.7', trusted), ip('203.0.113.1'), 'an untrusted peer\'s header is ignored');
  t.same(throttleAddress(peer, undefined, trusted), peer);
  t.same(throttleAddress(peer, '192.0.2.7', trusted), ip('192.0.2.7'));
  t.same(throttleAddress(peer, '1.1.1.1, 192.0.2.7, 10.0.0.5', trusted), ip('192.0.2.7'), 'trusted hops skipped, spoofed left entries ignored');
  t.same(throttleAddress(peer, '10.0.0.9, 10.0.0.5', trusted), ip('10.0.0.9'), 'all trusted: the left-most');
  t.same(throttleAddress(peer, 'garbage, 10.0.0.5', trusted), ip('10.0.0.5'), 'a malformed entry stops the walk');
  t.same(throttleAddress(peer, '192.0.2.7', IpSet.parse([])), peer, 'no trusted proxies: the peer always');
});
