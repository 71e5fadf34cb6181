// conf/duration.ts: the one place durations are read. Every duration key holds milliseconds after loading.
import path from 'node:path';
import t from 'tap';
import { catalogIndex } from '../../conf/catalog/index.js';
import { formatDuration, parseDuration } from '../../conf/duration.js';
import { ConfigError } from '../../conf/errors.js';
import { HomeLayout } from '../../conf/home.js';
import { loadConfigText } from '../../conf/loader.js';

t.test('forms that read', async (t) => {
  const cases: [unknown, number][] = [
    ['2m', 120_000], ['15 minutes', 900_000], ['1 minute', 60_000], ['3m', 180_000], ['3 m', 180_000], [' 3m ', 180_000],
    ['120000ms', 120_000], ['1000ms', 1000], ['2s', 2000], ['200s', 200_000], ['10 seconds', 10_000], ['5 sec', 5000],
    ['1h', 3_600_000], ['2 hours', 7_200_000], ['30d', 2_592_000_000], ['1 day', 86_400_000],
    ['2M', 120_000], ['15 Minutes', 900_000], ['1.5s', 1500], ['0.5m', 30_000],
    [600000, 600_000], ['600000', 600_000], [0, 0], ['0', 0], [1.5, 2], ['1.5', 2], [10n, 10],
  ];
  for (const [input, ms] of cases) t.equal(parseDuration(input), ms, `${JSON.stringify(typeof input === 'bigint' ? `${input}n` : input)} -> ${ms} ms`);
});

t.test('forms that do not', async (t) => {
  for (const input of ['', ' ', 'm', 'abc', '5 fortnights', '-5s', '-1', '1h30m', '1,5s', 'PT2M', '5 m s', '1e3', 'Infinity', true, false, null, undefined, [], {}, -1, Number.NaN, Number.POSITIVE_INFINITY, -1n]) {
    t.equal(parseDuration(input), undefined, typeof input === 'bigint' ? `${input}n` : JSON.stringify(input) ?? String(input));
  }
});

t.test('formatDuration writes the largest whole unit', async (t) => {
  t.equal(formatDuration(120_000), '2m');
  t.equal(formatDuration(90_000), '90s');
  t.equal(formatDuration(2_592_000_000), '30d');
  t.equal(formatDuration(3_600_000), '1h');
  t.equal(formatDuration(1500), '1500ms');
  t.equal(formatDuration(0), '0ms');
  for (const ms of [1, 999, 1000, 60_000, 61_000, 86_400_000]) t.equal(parseDuration(formatDuration(ms)), ms, `${ms} round-trips`);
});

t.test('duration keys in a file', async (t) => {
  const home = '/srv/sluice-home';
  const load = (toml: string) => loadConfigText(toml, path.join(home, 'repository/conf/deployment.toml'), new HomeLayout(home), { env: {} });
  const c = load('[passthru_http]\n"http.socket.timeout" = "3m"\n[apim.cache.gateway_token]\nexpiry_time = "15 minutes"\n[mediation]\n"synapse.global_timeout_interval" = 90000\n[apim.gateway_notification.cleanup]\ndata_retention_period = "30d"\n[transport.passthru_https]\nlistener.ssl_profile_interval = "600000"\nlistener.parameters.WSDLEPRPrefix = "x"\n');
  t.equal(c.get('passthru_http.http.socket.timeout'), 180_000);
  t.equal(c.get('apim.cache.gateway_token.expiry_time'), 900_000);
  t.equal(c.get('mediation.synapse.global_timeout_interval'), 90_000);
  t.equal(c.get('apim.gateway_notification.cleanup.data_retention_period'), 2_592_000_000);
  t.equal(c.get('transport.passthru_https.listener.ssl_profile_interval'), 600_000);
  let err: unknown;
  try { load('[passthru_http]\n"http.socket.timeout" = "3 minutes and a bit"\n'); } catch (e) { err = e; }
  t.ok(err instanceof ConfigError, 'a bad duration is refused');
  t.match((err as ConfigError).issues, [{ path: 'passthru_http.http.socket.timeout', line: 2, expected: /^a duration such as/ }]);

  t.test('a time in ms where -1 means forever is an integer, not a duration', async (t) => {
    const u = load('[user_store.properties]\nTenantManager = "x.JDBCTenantManager"\nReadTimeout = -1\n');
    t.equal(u.get('user_store.properties.ReadTimeout'), -1, 'the seed: zero or less waits forever');
  });

  t.test('every duration default of the catalog is whole milliseconds', async (t) => {
    for (const spec of catalogIndex.all) {
      if (spec.type !== 'duration' || spec.default === undefined) continue;
      t.ok(Number.isInteger(spec.default) && (spec.default as number) >= 0, `${spec.path}: ${String(spec.default)}`);
    }
  });
});
