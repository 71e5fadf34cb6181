// conf/source-locator.ts: the line of a key path in TOML text, for messages about values (smol-toml gives
// positions only for syntax errors).
import t from 'tap';
import { SourceLocator } from '../../conf/source-locator.js';

const TEXT = `# comment
[server]
hostname = "localhost"   # trailing comment

[passthru_http]
"http.socket.timeout" = "3m"
http.headers.preserve = "Content-Type"
worker_pool_size_core = 400

[transport.passthru_https]
listener.parameters.port = 8243
sender = { enable = true }

[ apim . cors ]
allow_methods = [
  "GET",
  "POST",
]
allow_headers = """
not = "a key"
"""
allow_credentials = false

[[apim.gateway.environment]]
name = "A"
[apim.gateway.environment.virtual_host]
https_endpoint = "https://a"
[[apim.gateway.environment]]
name = "B"
[apim.gateway.environment.virtual_host]
https_endpoint = "https://b"

[[registry_handler]]
class = "x"
[[registry_handler.nested_property]]
name = "p1"
[[registry_handler]]
class = "y"
[[registry_handler.nested_property]]
name = "p2"
[[registry_handler.nested_property]]
name = "p3"
[registry_handler.nested_property.settings]
depth = 2
`;

t.test('lines of keys', async (t) => {
  const l = new SourceLocator(TEXT);
  const cases: [string, number | undefined][] = [
    ['server', 2], ['server.hostname', 3],
    ['passthru_http.http.socket.timeout', 6], ['passthru_http.http.headers.preserve', 7], ['passthru_http.worker_pool_size_core', 8],
    ['transport.passthru_https.listener.parameters.port', 11],
    ['transport.passthru_https.sender.enable', 12], // inside an inline table: its key's line
    ['apim.cors', 14], ['apim.cors.allow_methods', 15], ['apim.cors.allow_headers', 19], ['apim.cors.allow_credentials', 22],
    ['apim.cors.not', 14], // text inside a multi-line string is not a key: falls back to the table
    ['apim.gateway.environment[0]', 24], ['apim.gateway.environment[0].name', 25],
    ['apim.gateway.environment[0].virtual_host', 26], ['apim.gateway.environment[0].virtual_host.https_endpoint', 27],
    ['apim.gateway.environment[1].name', 29], ['apim.gateway.environment[1].virtual_host.https_endpoint', 31],
    ['registry_handler[0].class', 34], ['registry_handler[0].nested_property[0].name', 36],
    ['registry_handler[1].class', 38], ['registry_handler[1].nested_property[0].name', 40], ['registry_handler[1].nested_property[1].name', 42],
    ['registry_handler[1].nested_property[1].settings.depth', 44],
    ['registry_handler[1].nested_property[1].unknown', 41], // not written: the enclosing element
    ['nowhere.at.all', undefined],
  ];
  for (const [p, line] of cases) t.equal(l.lineOf(p), line, p);
});

t.test('a key written twice has two lines', async (t) => {
  const l = new SourceLocator('[passthru_http]\nhttp.socket.timeout = 1\n"http.socket.timeout" = 2\n');
  t.same(l.linesOf('passthru_http.http.socket.timeout'), [2, 3]);
  t.equal(l.lineOf('passthru_http.http.socket.timeout'), 2);
  t.same(l.linesOf('passthru_http.nothing'), []);
});

t.test('CRLF line ends', async (t) => {
  t.equal(new SourceLocator('[server]\r\nhostname = "x"\r\noffset = 1\r\n').lineOf('server.offset'), 3);
});
