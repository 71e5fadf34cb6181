import t from 'tap';
import { startSecured, appToml } from '../../helpers/secured.js';
import { recordingBackend, rawRequest } from '../../helpers/recording-backend.js';
import { travApi } from '../../helpers/trav-api.js';

// Issue 17's second attack, as a new user tried it: a token whose application is subscribed but lacks
// `admin:write` reached the backend's admin page through spellings of /admin that the template did not
// match on the raw text. Now the scope is judged on the normalised path (900910), and the spellings that
// cannot be normalised safely are refused at the door (400). A token with the scope is the control.

const SPELLINGS: readonly { readonly target: string; readonly status: number; readonly fault: number; readonly why: string }[] = [
  { target: '/trav/v1/admin', status: 403, fault: 900910, why: 'the plain path' },
  { target: '/trav/v1/%61dmin', status: 403, fault: 900910, why: 'an encoded unreserved letter, decoded before routing (RFC 3986 §6.2.2.2)' },
  { target: '/trav/v1/x/../admin', status: 403, fault: 900910, why: 'a dot-segment, resolved before routing (RFC 3986 §5.2.4)' },
  { target: '/trav/v1/x/%2e%2e/admin', status: 403, fault: 900910, why: 'an encoded dot-segment' },
  { target: '/trav/v1/admin;x=1', status: 400, fault: 400, why: 'a path parameter: refused by default' },
  { target: '/trav/v1/admin%00', status: 400, fault: 400, why: 'an encoded NUL' },
];

t.test('a token without the scope reaches /admin by no spelling; one with the scope does', async (t) => {
  const be = await recordingBackend(t);
  const sub = [{ api: 'Trav:v1' }];
  const s = await startSecured(t, {
    apis: { trav: travApi(be.url) },
    apps: {
      reader: appToml({ name: 'Reader', keys: [{ id: 'reader-client', secret: 'reader-secret', scopes: ['menu:read'] }], subscriptions: sub }),
      writer: appToml({ name: 'Writer', keys: [{ id: 'writer-client', secret: 'writer-secret', scopes: ['admin:write'] }], subscriptions: sub }),
    },
  });
  const reader = (await s.token('reader-client', 'reader-secret', { scope: 'menu:read' })).accessToken;
  const writer = (await s.token('writer-client', 'writer-secret', { scope: 'admin:write' })).accessToken;
  t.ok(reader && writer, 'both tokens issued');
  const port = s.home.ports.http;
  const get = (target: string, token: string) => rawRequest(port, [Buffer.from(`GET ${target} HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${token}\r\n\r\n`, 'latin1')], 1);

  for (const c of SPELLINGS) {
    be.reset();
    const r = await get(c.target, reader!);
    t.equal(r.statuses[0], c.status, `${c.target} (${c.why}) without the scope: ${c.status}`, { got: r.text.slice(0, 300) });
    t.match(r.text, new RegExp(`"code":${c.fault}\\b`), `${c.target}: fault ${c.fault}`);
    t.same(be.seen.map((x) => x.line), [], `${c.target}: nothing reached the backend`);
  }

  // Controls: the scope opens the spellings that normalise to /admin, and the backend gets the normalised
  // path under the endpoint's base, never the raw one.
  for (const c of SPELLINGS.filter((x) => x.status === 403)) {
    be.reset();
    const r = await get(c.target, writer!);
    t.equal(r.statuses[0], 200, `${c.target} with the scope: 200`, { got: r.text.slice(0, 300) });
    t.same(be.seen.map((x) => x.line), ['GET /base/admin HTTP/1.1'], `${c.target}: the backend got /base/admin`);
  }
});
