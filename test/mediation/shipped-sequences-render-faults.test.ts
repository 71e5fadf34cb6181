// The twelve shipped sequences: real files in home/, equal to the built-in defaults, each rendering the default
// JSON fault body with the seed's status for its codes.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  BUILTIN_SEQUENCE_TEXT, Outcome, SequenceRegistry, SequenceRepository, parseSequence, renderFault, renderPreflight,
} from '../../mediation/index.js';
import { ApiHandlerError, GatewayError, SHIPPED_SEQUENCE_NAMES, errorByCode } from '../../errors/index.js';
import { SEQUENCES_HOME_DIR, captureLogger, json, message } from './fixtures/helpers.js';

const SEED_FILES = ['fault.xml', 'main.xml', '_auth_failure_handler_.xml', '_production_key_error_.xml', '_sandbox_key_error_.xml',
  '_throttle_out_handler_.xml', '_token_fault_.xml', '_resource_mismatch_handler_.xml', '_cors_request_handler_.xml',
  '_threat_fault_.xml', 'dispatchSeq.xml', 'outDispatchSeq.xml'];

t.test('the twelve files of seed 000 are shipped, named after their sequence, equal to the built-in defaults', async (t) => {
  t.same(fs.readdirSync(SEQUENCES_HOME_DIR).sort(), [...SEED_FILES].sort());
  t.same([...SHIPPED_SEQUENCE_NAMES].sort(), SEED_FILES.map((f) => f.slice(0, -4)).sort());
  for (const f of SEED_FILES) {
    const file = path.join(SEQUENCES_HOME_DIR, f);
    const text = fs.readFileSync(file, 'utf8');
    const ast = parseSequence(text, file);
    t.equal(ast.name, f.slice(0, -4), `${f}: name attribute`);
    t.match(text, /<sequence xmlns="http:\/\/ws\.apache\.org\/ns\/synapse" name="/, `${f}: the reference's namespace`);
    t.equal(text, BUILTIN_SEQUENCE_TEXT[ast.name as keyof typeof BUILTIN_SEQUENCE_TEXT], `${f}: same as the built-in default`);
  }
});

// Rendered from the shipped files (through the repository), not from the built-ins.
const { logger } = captureLogger();
const repo = new SequenceRepository({ dir: SEQUENCES_HOME_DIR, logger });
repo.rescan();
const registry = SequenceRegistry.compile(repo.snapshot(), { logger });

t.test('the shipped files deploy without errors', async (t) => {
  t.same(repo.errors(), []);
  t.equal(repo.get('fault')!.file, path.join(SEQUENCES_HOME_DIR, 'fault.xml'));
});

t.test('every API handler code renders through its sequence with the seed status and the default JSON body', async (t) => {
  for (const e of Object.values(ApiHandlerError)) {
    // A bare code renders as the first entry with that code (900901 is INVALID_CREDENTIALS, not a key error).
    if (errorByCode(e.code) !== e) continue;
    const code = e.code;
    const res = renderFault(registry, { code }, { apiName: 'PizzaShackAPI', apiVersion: '1.0.0' });
    t.equal(res.renderedBy, e.sequence, `${code}: sequence`);
    t.equal(res.status, e.status, `${code}: status`);
    t.same(res.headers, [['Content-Type', 'application/json']], `${code}: headers`);
    t.same(json(res.body), { fault: { code, type: 'Status report', message: e.message, description: e.description } }, `${code}: body`);
  }
});

t.test('the seed table: statuses and sequences by code', async (t) => {
  const status = (c: number) => errorByCode(c)!.status;
  const sequence = (c: number) => errorByCode(c)!.sequence;
  t.equal(status(700700), 503);
  t.equal(status(900422), 422);
  for (const c of [900800, 900802, 900803, 900804, 900805, 900806, 900807]) t.equal(status(c), 429, `${c}`);
  t.equal(status(900801), 503);
  for (let c = 900800; c <= 900807; c++) t.equal(sequence(c), '_throttle_out_handler_', `${c}`);
  t.equal(status(900900), 500);
  for (const c of [900901, 900902, 900905, 900907, 900909, 900911]) t.equal(status(c), 401, `${c}`);
  for (const c of [900906, 900908, 900910]) t.equal(status(c), 403, `${c}`);
  t.equal(sequence(900906), '_resource_mismatch_handler_');
  t.equal(sequence(900901), '_auth_failure_handler_');
  t.equal(status(102511), 400);
  t.equal(errorByCode(900901)!.message, 'Invalid Credentials');
  t.equal(errorByCode(900902)!.message, 'Missing Credentials');
  t.match(errorByCode(900902)!.description, /Make sure your API invocation call has a header: 'Authorization : Bearer ACCESS_TOKEN'/);
});

t.test('the caller\'s status wins over the sequence default; message and description can be given', async (t) => {
  const res = renderFault(registry, { code: 101504, status: 504, message: 'Connection timed out', description: 'backend did not answer "in time"' });
  t.equal(res.renderedBy, 'fault');
  t.equal(res.status, 504);
  t.same(json(res.body), { fault: { code: 101504, type: 'Status report', message: 'Connection timed out', description: 'backend did not answer "in time"' } });
  const unknown = renderFault(registry, { code: 123456 });
  t.equal(unknown.status, 500, 'an unknown code without a status: 500 through fault');
  t.equal(unknown.renderedBy, 'fault');
});

t.test('production and sandbox key errors, threat and token faults, the throttle handler with Retry-After', async (t) => {
  const prod = renderFault(registry, ApiHandlerError.PRODUCTION_KEY_ERROR);
  t.equal(prod.renderedBy, '_production_key_error_');
  t.equal(prod.status, 401);
  t.same(json(prod.body), { fault: { code: 900901, type: 'Status report', message: 'Invalid Credentials', description: 'Production key offered to an API with no production endpoint' } });
  const sandbox = renderFault(registry, ApiHandlerError.SANDBOX_KEY_ERROR);
  t.equal(sandbox.renderedBy, '_sandbox_key_error_');
  t.match(sandbox.body!.toString(), /Sandbox key offered to an API with no sandbox endpoint/);
  const threat = renderFault(registry, { code: 400, sequence: '_threat_fault_', message: 'Bad Request', description: 'JSON depth exceeded' });
  t.equal(threat.renderedBy, '_threat_fault_');
  t.equal(threat.status, 400);
  const threatNoStatus = renderFault(registry, { code: 900999, sequence: '_threat_fault_', message: 'x', description: 'y' });
  t.equal(threatNoStatus.status, 500, 'a caller status (the default 500 for unknown codes) is kept');
  const token = renderFault(registry, { code: 101503, sequence: '_token_fault_', status: 503, message: 'Connection failed' });
  t.equal(token.renderedBy, '_token_fault_');
  t.equal(token.status, 503);
  const throttled = renderFault(registry, { code: 900800, headers: [['Retry-After', '30']] });
  t.equal(throttled.status, 429);
  t.same(throttled.headers, [['Retry-After', '30'], ['Content-Type', 'application/json']]);
});

t.test('main answers 404 with a JSON fault for a path no API matches', async (t) => {
  const res = renderFault(registry, GatewayError.NO_MATCHING_API, { method: 'GET', path: '/nothing/here' });
  t.equal(res.renderedBy, 'main');
  t.equal(res.status, 404);
  const body = json(res.body) as { fault: { code: number; message: string; description: string } };
  t.equal(body.fault.code, 404);
  t.equal(body.fault.message, 'Not Found');
  t.match(body.fault.description, /No API matches the request path/);
});

t.test('the CORS handler answers a preflight without a body and does nothing for other methods', async (t) => {
  const cors: [string, string][] = [['Access-Control-Allow-Origin', '*'], ['Access-Control-Allow-Methods', 'GET,POST']];
  const res = renderPreflight(registry, { method: 'OPTIONS', path: '/pizzashack/1.0.0/menu' }, cors);
  t.equal(res.status, 200);
  t.equal(res.body, null);
  t.same(res.headers, cors);
  const m = message('fault', { facts: { method: 'GET' } });
  t.equal(registry.run('_cors_request_handler_', m), Outcome.CONTINUE, 'callable by key from a handler, as in the reference');
  const m2 = message('fault', { facts: { method: 'OPTIONS' } });
  t.equal(registry.run('_cors_request_handler_', m2), Outcome.RESPOND);
  t.equal(m2.axis2.get('NO_ENTITY_BODY'), true);
});

t.test('dispatchSeq and outDispatchSeq pass through', async (t) => {
  for (const name of ['dispatchSeq', 'outDispatchSeq']) {
    const m = message(name === 'dispatchSeq' ? 'request' : 'response', { body: 'frame', contentType: 'text/plain' });
    t.equal(registry.run(name, m), Outcome.CONTINUE, name);
    t.equal(m.body!.toString(), 'frame');
  }
});
