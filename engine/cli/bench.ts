import autocannon from 'autocannon';
import { CliUsageError } from './cli-error.js';

export interface BenchArgs {
  url?: string;
  connections?: string;
  duration?: string;
  header?: string[];
  method?: string;
  body?: string;
}

/**
 * `sluice bench`: autocannon against one URL, the figures an operator tunes [passthru_http] by; a progress
 * line a second on stderr, the result on stdout.
 */
export async function benchCommand(args: BenchArgs): Promise<number> {
  if (!args.url) throw new CliUsageError('bench needs --url (for example --url http://127.0.0.1:8280/pizzashack/1.0.0/menu)');
  const connections = Number(args.connections ?? 50);
  const duration = Number(args.duration ?? 10);
  if (!Number.isInteger(connections) || connections < 1) throw new CliUsageError('--connections takes a positive integer');
  if (!Number.isFinite(duration) || duration <= 0) throw new CliUsageError('--duration takes a number of seconds');
  const headers: Record<string, string> = {};
  for (const h of args.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new CliUsageError(`--header "${h}" is not "Name: value"`);
    headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: args.url!, connections, duration, headers,
      method: (args.method ?? 'GET') as autocannon.Request['method'],
      ...(args.body !== undefined ? { body: args.body } : {}),
    }, (err, res) => (err ? reject(err) : resolve(res)));
    // One line a second on stderr (stdout keeps the result): where the run is and what it sees so far.
    // @types/autocannon leaves out the arguments autocannon gives these events: the plain emitter's on() takes them.
    const events = instance as unknown as NodeJS.EventEmitter;
    let second = 0;
    let total = 0;
    let errors = 0;
    let non2xx = 0;
    events.on('reqError', () => { errors++; });
    events.on('response', (_client: unknown, status: number) => { if (status < 200 || status > 299) non2xx++; });
    events.on('tick', (t: { counter: number }) => {
      second++;
      total += t.counter;
      if (second > Math.ceil(duration)) return; // autocannon's last tick comes after the run
      const left = Math.max(0, Math.round(duration - second));
      process.stderr.write(`${String(second).padStart(String(Math.ceil(duration)).length)}/${Math.ceil(duration)} s  ${String(t.counter).padStart(7)} req/s  total ${total}  errors ${errors}  non-2xx ${non2xx}  ${left} s left\n`);
    });
  });
  const l = result.latency;
  process.stdout.write([
    `url          ${args.url}`,
    `connections  ${connections}, ${duration} s`,
    `requests/s   ${result.requests.average.toFixed(0)} (total ${result.requests.total})`,
    `latency ms   p50 ${l.p50}  p90 ${l.p90}  p99 ${l.p99}  max ${l.max}`,
    `throughput   ${(result.throughput.average / 1024 / 1024).toFixed(2)} MiB/s`,
    `errors       ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    '',
  ].join('\n'));
  return result.errors || result.non2xx ? 1 : 0;
}
