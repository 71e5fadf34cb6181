// The catalog against a second reading of the seeds: for every key whose default the seed shows
// (fixtures/seed-defaults.ts, transcribed independently of conf/catalog/), the catalog has the key and the
// effective configuration of a file that sets nothing but [server] hostname holds that default.
// Durations are compared in milliseconds, lists as lists, quoted numbers as numbers.
import t from 'tap';
import { catalogIndex, type RepeatableSection } from '../../conf/catalog/index.js';
import { loadConfig } from '../../conf/loader.js';
import { SEED_DEFAULTS, type SeedDefault } from './fixtures/seed-defaults.js';
import { MINIMAL, lookup, tempHome } from './fixtures/helpers.js';

/** The seed's duration forms, read here without conf/duration.ts so that the two readings stay apart. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, minute: 60_000, minutes: 60_000, h: 3_600_000, d: 86_400_000 };
function seedMs(text: string): number | undefined {
  const m = /^(\d+)\s*([a-z]+)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = UNIT_MS[m[2]!];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}

/** The seed's value in the shape of the loaded one. */
function expected(seed: SeedDefault[1], actual: unknown): unknown {
  if (Array.isArray(actual)) {
    return Array.isArray(seed) ? [...seed] : String(seed).split(',').map((s) => s.trim()).filter(Boolean);
  }
  if (typeof actual === 'boolean') {
    if (typeof seed === 'boolean') return seed;
    if (seed === 'true' || seed === 'false') return seed === 'true';
    return seed;
  }
  if (typeof actual === 'number') {
    if (typeof seed === 'number') return seed;
    if (typeof seed === 'string' && /^-?\d+(\.\d+)?$/.test(seed.trim())) return Number(seed);
    if (typeof seed === 'string') return seedMs(seed) ?? seed;
    return seed;
  }
  return Array.isArray(seed) ? seed.join(',') : String(seed);
}

/** Repeatable sections the table covers, each with one element holding only its required keys without a default. */
const ELEMENTS = `
[[apim.gateway.environment]]
description = "d"
service_url = "https://localhost:9443/services/"
username = "admin"
password = "admin"
ws_endpoint = "ws://localhost:9099"
https_endpoint = "https://localhost:8243"

[[registry_handler]]
class = "x.Handler"
filter_class = "x.Filter"

[[registry_handler.nested_property]]
name = "p"
`;

t.test('the fixture is one row per key', async (t) => {
  const paths = SEED_DEFAULTS.map(([p]) => p);
  t.same(paths.filter((p, i) => paths.indexOf(p) !== i), [], 'no key listed twice');
  t.ok(SEED_DEFAULTS.length > 300, `${SEED_DEFAULTS.length} rows`);
});

t.test('every key whose default the seed shows is in the catalog with that default', async (t) => {
  const plain = loadConfig(tempHome(t, MINIMAL).dir).effective({ maskSecrets: false });
  // Elements, defaults filled (a nested section's elements live inside their parent's: items() finds them).
  const withElements = loadConfig(tempHome(t, MINIMAL + ELEMENTS).dir);
  for (const [path, seed] of SEED_DEFAULTS) {
    const spec = catalogIndex.exact.get(path);
    if (!t.ok(spec, `${path}: in the catalog`)) continue;
    let found: ReturnType<typeof lookup>;
    if (path.includes('[]')) {
      const [section, key] = path.split('[].') as [RepeatableSection, string];
      const elements = withElements.items(section);
      t.equal(elements.length, 1, `${section}: one element`);
      found = lookup(elements[0], key.split('.'));
    } else {
      found = lookup(plain, path.split('.'));
    }
    if (!t.ok(found.found && found.value !== undefined, `${path}: has a default`)) continue;
    const actual = (found as { value: unknown }).value;
    t.same(actual, expected(seed, actual), `${path}: default ${JSON.stringify(seed)}`);
  }
});

/**
 * Catalog defaults the seed does not show as a value (it describes them, or gives none), with the reason the
 * catalog holds one anyway. A default that is neither here nor in the seed table was invented: the test fails.
 */
const CATALOG_ONLY: Readonly<Record<string, string>> = {
  'apim.oauth_config.allowed_scopes': 'the seed describes "one pattern for device_ prefix plus openid"; the catalog writes it out',
};

t.test('every default the seed catalog keys hold comes from the seed', async (t) => {
  const seedPaths = new Set(SEED_DEFAULTS.map(([p]) => p));
  for (const spec of catalogIndex.all) {
    if (spec.sluice || spec.path.includes('<') || spec.default === undefined) continue;
    t.ok(seedPaths.has(spec.path) || spec.path in CATALOG_ONLY, `${spec.path}: default ${JSON.stringify(spec.default)} is shown by the seed`);
  }
  for (const p of Object.keys(CATALOG_ONLY)) t.notOk(seedPaths.has(p), `${p}: listed as catalog-only but the seed table has it`);
});

t.test("Sluice's own keys do not reuse a seed key", async (t) => {
  const seedPaths = new Set(SEED_DEFAULTS.map(([p]) => p));
  for (const spec of catalogIndex.all) if (spec.sluice) t.notOk(seedPaths.has(spec.path), spec.path);
});
