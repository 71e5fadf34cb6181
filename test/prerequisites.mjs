// Run by `npm test` before tap: the programs the suite starts (real PostgreSQL, Redis, wrk, h2load, HAProxy, openssl,
// Chromium for the browser flow, OpenLDAP's slapd) must be
// installed. When one is missing, one line says which and how to install them, instead of dozens of failures.
import fs from 'node:fs';
import path from 'node:path';

const onPath = (name) => (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, name)));
const postgres = () => onPath('initdb') || (fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)));
const needs = [
  ['postgresql', postgres],
  ['redis-server', () => onPath('redis-server')],
  ['wrk', () => onPath('wrk')],
  // h2load: the bench's warm HTTPS load (test/bench/h2load.test.ts); Debian's package is nghttp2-client.
  ['nghttp2-client', () => onPath('h2load')],
  ['haproxy', () => onPath('haproxy') || fs.existsSync('/usr/sbin/haproxy')],
  ['openssl', () => onPath('openssl')],
  ['chromium', () => fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')],
  ['slapd', () => fs.existsSync(process.env.SLAPD_PATH ?? '/usr/sbin/slapd')],
];
const missing = needs.filter(([, found]) => !found()).map(([pkg]) => pkg);
if (missing.length) {
  process.stderr.write(`npm test needs ${missing.join(', ')}, not installed here: apt-get install -y ${missing.join(' ')} (Debian), or run bash .ci/run, which installs what is missing and runs the suite\n`);
  process.exit(1);
}
