// The error catalogue (errors/): one named entry per error a client can get, the seed's wording and statuses
// where the seed gives them, and lookups by code that pick the seed's entry.
import t from 'tap';
import {
  ALL_ERRORS, ApiHandlerError, DoorError, GatewayError, SHIPPED_SEQUENCE_NAMES, TransportError, errorByCode, errorKind, faultOf, isThrottleCode,
} from '../../errors/index.js';

t.test('every entry is named after its key, once, and renders through a shipped sequence', async (t) => {
  const names = ALL_ERRORS.map((e) => e.name);
  t.same(names.length, new Set(names).size, 'names are unique across families');
  for (const e of ALL_ERRORS) {
    t.ok(SHIPPED_SEQUENCE_NAMES.includes(e.sequence), `${e.name}: ${e.sequence} is a shipped sequence`);
    t.ok(e.status >= 100 && e.status <= 599, `${e.name}: an HTTP status`);
    t.ok(e.message.length > 0 && e.description.length > 0 && e.when.length > 0, `${e.name}: message, description, when`);
    t.ok(Object.isFrozen(e), `${e.name}: frozen`);
  }
  for (const [k, e] of Object.entries({ ...ApiHandlerError, ...GatewayError, ...DoorError, ...TransportError })) t.equal(e.name, k);
});

t.test('the seed\'s table: statuses and sequences of the API handler codes', async (t) => {
  t.equal(ApiHandlerError.API_BLOCKED.code, 700700);
  t.equal(ApiHandlerError.API_BLOCKED.status, 503);
  t.equal(ApiHandlerError.INVALID_CREDENTIALS.code, 900901);
  t.equal(ApiHandlerError.INVALID_CREDENTIALS.status, 401);
  t.equal(ApiHandlerError.INVALID_CREDENTIALS.sequence, '_auth_failure_handler_');
  t.equal(ApiHandlerError.NO_MATCHING_RESOURCE.message, 'No matching resource found in the API for the given request');
  t.equal(ApiHandlerError.PRODUCTION_KEY_ERROR.sequence, '_production_key_error_');
  t.equal(ApiHandlerError.SANDBOX_KEY_ERROR.sequence, '_sandbox_key_error_');
  for (let c = 900800; c <= 900807; c++) t.equal(errorByCode(c)!.sequence, '_throttle_out_handler_', `${c}`);
  t.equal(TransportError.CONNECTION_TIMED_OUT.code + 3, TransportError.CONNECTION_CANCELED.code, 'the seed\'s example: 101504 + REQUEST_DONE collides with 101507');
});

t.test('a bare code stands for the seed\'s entry; an unknown code for none', async (t) => {
  t.equal(errorByCode(900901), ApiHandlerError.INVALID_CREDENTIALS, 'not the key-type situations that share it');
  t.equal(errorByCode(400), ApiHandlerError.BAD_REQUEST, 'the seed\'s generic code before Sluice\'s own 400s');
  t.equal(errorByCode(101503), TransportError.CONNECTION_FAILED);
  t.equal(errorByCode(123456), undefined);
});

t.test('"no endpoint" has its own entry, no longer the transport\'s "Connection failed"', async (t) => {
  t.not(GatewayError.NO_ENDPOINT.code, TransportError.CONNECTION_FAILED.code);
  t.equal(GatewayError.NO_ENDPOINT.status, 503);
});

t.test('a call site sharpens a fault without changing the entry', async (t) => {
  const f = faultOf(ApiHandlerError.INVALID_CREDENTIALS, { description: 'The access token has expired', headers: [['WWW-Authenticate', 'Bearer']] });
  t.match(f, { code: 900901, status: 401, message: 'Invalid Credentials', description: 'The access token has expired', sequence: '_auth_failure_handler_' });
  t.same(f.headers, [['WWW-Authenticate', 'Bearer']]);
  t.equal(ApiHandlerError.INVALID_CREDENTIALS.description, 'Invalid Credentials. Make sure you have provided the correct security credentials');
  t.equal(faultOf(GatewayError.AT_CAPACITY), GatewayError.AT_CAPACITY, 'nothing to change: the entry itself');
});

t.test('kinds of failure for analytics, by the seed\'s ranges', async (t) => {
  t.equal(errorKind(0), null);
  t.equal(errorKind(ApiHandlerError.BURST_THROTTLED_OUT.code), 'THROTTLED');
  t.equal(errorKind(ApiHandlerError.INVALID_BASIC_CREDENTIALS.code), 'AUTH');
  t.equal(errorKind(ApiHandlerError.API_BLOCKED.code), 'API_BLOCKED');
  t.equal(errorKind(TransportError.CONNECTION_FAILED.code), 'TARGET_CONNECTIVITY');
  t.equal(errorKind(TransportError.CONNECTION_TIMED_OUT.code + 5), 'TARGET_CONNECTIVITY', 'base + state');
  t.equal(errorKind(ApiHandlerError.INCOMPLETE_PAYLOAD.code), 'TARGET_CONNECTIVITY');
  t.equal(errorKind(GatewayError.AT_CAPACITY.code), 'OTHER');
  t.ok(isThrottleCode(900800) && isThrottleCode(900807) && !isThrottleCode(900808) && !isThrottleCode(900799));
});
