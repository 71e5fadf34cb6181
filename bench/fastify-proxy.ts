import fs from 'node:fs';
import cluster from 'node:cluster';
import Fastify, { type FastifyRequest } from 'fastify';
import proxy from '@fastify/http-proxy';
import jwt from '@fastify/jwt';
import rateLimit from '@fastify/rate-limit';

/**
 * `node dist/bench/fastify-proxy.js PORT UPSTREAM_PORT WORKERS PUBLIC_KEY_PEM [RATE_LIMIT]`: the Node stack a
 * team would otherwise assemble, as a peer of the benchmark.
 *
 *   /*         pass-through: @fastify/http-proxy
 *   /secure/*  the same secured work as Sluice's secured API: @fastify/jwt verifies an RS256 bearer token
 *              against the gateway's signing key (exp required and checked, fast-jwt's token cache on), then
 *              @fastify/rate-limit counts the call in memory per client (`azp`) against RATE_LIMIT calls a
 *              minute (default: a limit the bench never reaches), then @fastify/http-proxy forwards it with
 *              the path after /secure
 *
 * WORKERS > 1 runs a node:cluster of that many processes (how a Node service uses more than one core; Node
 * 20 has no SO_REUSEPORT); each keeps its own rate-limit counters, as @fastify/rate-limit's memory store does.
 */
const [portArg, upstreamArg, workersArg, pemFile, limitArg] = process.argv.slice(2);
const port = Number(portArg);
const upstream = `http://127.0.0.1:${Number(upstreamArg)}`;
const workers = Math.max(1, Number(workersArg ?? 1));
const limit = Number(limitArg ?? 1_000_000_000);
if (!port || !pemFile) {
  process.stderr.write('usage: fastify-proxy.js PORT UPSTREAM_PORT WORKERS PUBLIC_KEY_PEM [RATE_LIMIT]\n');
  process.exit(2);
}

if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => { for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM'); process.exit(0); });
} else {
  const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 * 1024 });
  // Bodies pass through untouched, as through the other proxies.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  await app.register(async (secured) => {
    await secured.register(jwt, { secret: { public: fs.readFileSync(pemFile, 'utf8') }, verify: { algorithms: ['RS256'], requiredClaims: ['exp'], cache: true } });
    // Every token that does not verify is a 401, as a team would write it: @fastify/jwt answers 500 for
    // some of fast-jwt's refusals (an algorithm not allowed).
    secured.addHook('onRequest', async (req, reply) => {
      try { await req.jwtVerify(); } catch { return reply.code(401).send({ error: 'invalid_token' }); }
    });
    // preHandler: after onRequest, so the verified token's client is known when the call is counted.
    await secured.register(rateLimit, {
      max: limit, timeWindow: 60_000, hook: 'preHandler',
      keyGenerator: (req: FastifyRequest) => String((req.user as { azp?: unknown } | undefined)?.azp ?? ''),
    });
    await secured.register(proxy, { upstream, prefix: '/secure', rewritePrefix: '' });
  });
  await app.register(proxy, { upstream, prefix: '/' });
  await app.listen({ port, host: '127.0.0.1' });
  process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
}
