import Fastify from 'fastify';
import proxy from '@fastify/http-proxy';

/** `node dist/bench/fastify-proxy.js PORT UPSTREAM_PORT`: the comparison proxy of the benchmark. */
const [port, upstream] = process.argv.slice(2).map(Number);
const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 * 1024 });
// Pass bodies through untouched, like the other proxies.
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
await app.register(proxy, { upstream: `http://127.0.0.1:${upstream}`, prefix: '/' });
await app.listen({ port: port!, host: '127.0.0.1' });
process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
