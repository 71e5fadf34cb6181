/**
 * Small keep-alive HTTP(S) clients for the chaos run and the fault tests (no process handlers here: tests
 * import it too). A failure is an answer with status 0, never a throw.
 */
import http from 'node:http';
import https from 'node:https';

export interface Answer {
  readonly status: number;
  readonly json: any;
  readonly headers: http.IncomingHttpHeaders;
  readonly error?: string;
  /** When the answer ended (epoch ms). */
  readonly at: number;
}

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false });

/** One request on a keep-alive agent; never throws (status 0 and `error` on a failure). */
export function send(url: string, o: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; json?: unknown; timeoutMs?: number } = {}): Promise<Answer> {
  const body = o.form ? new URLSearchParams(o.form).toString() : o.json !== undefined ? JSON.stringify(o.json) : undefined;
  const headers = { ...(o.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(o.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? {}) };
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve) => {
    const r = mod.request(url, { method: o.method ?? (body !== undefined ? 'POST' : 'GET'), headers, agent: url.startsWith('https:') ? httpsAgent : httpAgent }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { let json; try { json = JSON.parse(text); } catch { /* not JSON */ } resolve({ status: res.statusCode ?? 0, json, headers: res.headers, at: Date.now() }); });
      res.on('error', (e) => resolve({ status: 0, json: undefined, headers: {}, error: e.message, at: Date.now() }));
    });
    r.on('error', (e) => resolve({ status: 0, json: undefined, headers: {}, error: e.message, at: Date.now() }));
    r.setTimeout(o.timeoutMs ?? 20_000, () => r.destroy(new Error('client timeout')));
    r.end(body);
  });
}

export const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it holds or `ms` pass; true when it held. */
export async function until(check: () => Promise<boolean> | boolean, ms: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await sleep(everyMs);
  }
}
