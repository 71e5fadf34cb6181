import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend, request } from '../helpers/backends.js';

// The io threads write their calls' columns in a few segments of shared memory that the main thread gives
// back once it has read a batch (engine/gateway/telemetry/column-segments.ts). Enough calls for more batches
// than there are segments: a segment written again before the main thread read it would lose or repeat lines.
const CALLS = 6000;
const CLIENTS = 20;

t.test('every call of many batches has its own access log line, once', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: true, useLogger: false } }, {
    [`${API_DIR}/batches.toml`]: apiToml({ name: 'Batches', context: '/batches', production: backend.url, verbs: ['GET'] }),
  });
  let next = 0;
  const client = async (): Promise<void> => {
    for (let n = next++; n < CALLS; n = next++) {
      const r = await request(s.url(`/batches/1.0.0/c?n=${n}`));
      if (r.status !== 200) throw new Error(`call ${n}: ${r.status}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));

  const accessFile = path.join(s.home.dir, 'repository/logs/http_access.log');
  const lines = await eventually(() => {
    const all = fs.existsSync(accessFile) ? fs.readFileSync(accessFile, 'utf8').split('\n').filter((l) => l.includes('"GET /batches/1.0.0/c?n=')) : [];
    return all.length >= CALLS ? all : undefined;
  }, `${CALLS} lines in http_access.log`);
  t.equal(lines.length, CALLS, 'one line per call');
  const seen = new Map<number, number>();
  for (const l of lines) {
    const m = /"GET \/batches\/1\.0\.0\/c\?n=(\d+) HTTP\/1\.1" 200 \d+ "-" "[^"]*" \d+\.\d{3} Batches:1\.0\.0 - -$/.exec(l);
    if (!m) { t.fail(`a line as written: ${l}`); continue; }
    seen.set(Number(m[1]), (seen.get(Number(m[1])) ?? 0) + 1);
  }
  t.equal(seen.size, CALLS, 'every call is there');
  t.ok([...seen.values()].every((c) => c === 1), 'and none twice');
});
