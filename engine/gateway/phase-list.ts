import type { PhaseSpec } from '../kernel/phase.js';
import { ThrottlePhase } from '../throttling/throttle-phase.js';
import { UpgradeRequiredPhase } from '../websocket/upgrade-required-phase.js';
import type { PhaseEnv } from './phase-env.js';
import { AuthenticatePhase } from './phases/authenticate.js';
import { AuthorizePhase } from './phases/authorize.js';
import { BackendJwtPhase } from './phases/backend-jwt.js';
import { CorsPhase } from './phases/cors.js';
import { GraphqlQueryPhase } from './phases/graphql-query.js';
import { InSequencePhase } from './phases/in-sequence.js';
import { MutualSslPhase } from './phases/mutual-ssl.js';
import { ResolveApiPhase } from './phases/resolve-api.js';
import { ValidateBodyPhase } from './phases/validate-body.js';
import { TracePhase } from './telemetry/trace.js';

const always = (): boolean => true;

/**
 * The gateway's request phases, in the order a call runs them (docs/architecture.md draws it). After the
 * last one comes the terminal step: the sender (engine/gateway/backend-side.ts), or the WebSocket handshake.
 * Each phase CONTINUEs, answers and STOPs, or SUSPENDs and goes on later (engine/kernel/phase.ts); a phase
 * that a node's configuration does not need is left out. To add a phase: write it (engine/gateway/phases/,
 * or the feature's folder), and add an entry here where it belongs, with its doc.
 */
export const PHASES: readonly PhaseSpec<PhaseEnv>[] = [
  {
    name: 'resolve-api',
    doc: 'Finds the API by /<context>/<version> and the resource by verb and URI template, on one deployment for the whole call, and picks the production endpoint. '
      + 'Answers: no API 404 (main); a path climbing above the context 400; a BLOCKED API 700700; an unpublished one 404; no resource 900906. '
      + 'The gateway\'s /token and /revoke route to the key manager (POST only: 405).',
    enabledWhen: always,
    make: (env) => new ResolveApiPhase(env.deployed),
  },
  {
    name: 'websocket-upgrade-required',
    doc: 'A plain HTTP request to a WebSocket API is answered 426 (code 400) before any authentication; handshakes pass.',
    enabledWhen: always,
    make: () => new UpgradeRequiredPhase(),
  },
  {
    name: 'cors',
    doc: 'CORS ([apim.cors] or the API\'s own): answers a preflight through _cors_request_handler_ without authentication; '
      + 'adds Access-Control-Allow-Origin to other calls from an allowed origin. An OPTIONS that is no preflight and has no resource: 900906.',
    enabledWhen: always,
    make: (env) => new CorsPhase(env.security, env.faults),
  },
  {
    name: 'mutual-ssl',
    doc: 'APIs with client certificates ([apimgt.mutual_ssl]): the certificate from the TLS session or certificate_header must be one of the API\'s (900901).',
    enabledWhen: always,
    make: (env) => new MutualSslPhase(env.security),
  },
  {
    name: 'authenticate',
    doc: 'Resources with auth type None pass. Others need a credential: a JWT checked in the gateway (cache, else a worker thread: SUSPEND), an opaque token at the key manager, '
      + 'or an API key / Basic auth for APIs that list them. 900902 missing, 900901 invalid, expired or revoked, 900900 key manager unreachable.',
    enabledWhen: always,
    make: (env) => new AuthenticatePhase(env.security),
  },
  {
    name: 'authorize',
    doc: 'The token type the resource allows (900905), the subscription of the token\'s application (900908 none, 900907 blocked, 900909 inactive), '
      + 'the resource\'s scopes (900910), and the key type: a sandbox key routes to the sandbox endpoint; a missing endpoint for the key type is 900901 '
      + 'through _production_key_error_ / _sandbox_key_error_.',
    enabledWhen: always,
    make: (env) => new AuthorizePhase(env.security),
  },
  {
    name: 'throttle',
    doc: 'Block conditions (900805), then the API, resource, subscription (with burst), application and custom policies, counted in the node\'s shared '
      + 'counters (and across nodes through Redis): 900800..900807 through _throttle_out_handler_, with Retry-After and the rate-limit headers. '
      + 'Reads the caller that authorize set. Left out when the node runs no throttling extension.',
    enabledWhen: (env) => ThrottlePhase.enabled(env.host.state),
    make: (env) => new ThrottlePhase(env.host.state, env.host.log),
  },
  {
    name: 'graphql-query',
    doc: 'GraphQL APIs: reads the query (the body, held whole up to its cap, or ?query=), bounds its tokens and depth before parsing, and parses it: 900422 when it is refused.',
    enabledWhen: always,
    make: (env) => new GraphqlQueryPhase(env.graphql),
  },
  {
    name: 'backend-jwt',
    doc: '[apim.jwt] enable: signs the backend JWT of the caller (cached per caller) and adds it in X-JWT-Assertion; SUSPENDs while a worker thread signs. '
      + 'A signing failure: 101510.',
    enabledWhen: always,
    make: (env) => new BackendJwtPhase(env.security),
  },
  {
    name: 'in-sequence',
    doc: 'The API\'s in_sequence: on headers and properties only, or on the body held whole when the sequence reads it (SUSPEND until it is here). '
      + 'RESPOND answers from the sequence, DROP answers 202; a sequence that is not deployed or fails: 101510; a header it built that no head may carry: 400.',
    enabledWhen: always,
    make: (env) => new InSequencePhase(env.mediation, env.headerRules),
  },
  {
    name: 'validate-body',
    doc: '[passthru_http] force_json_validation / force_xml_validation: a JSON or XML body is read whole and parsed before it is sent (400 when malformed).',
    enabledWhen: (env) => env.passthru.forceJsonValidation || env.passthru.forceXmlValidation,
    make: (env) => new ValidateBodyPhase(env.passthru.forceJsonValidation, env.passthru.forceXmlValidation),
  },
  {
    name: 'trace',
    doc: 'Tracing on ([apim.open_tracer]): takes the caller\'s trace context (B3, W3C traceparent) or starts one, and adds the propagation headers for the backend. '
      + 'Last in the list: it is switched on and off while the node runs.',
    enabledWhen: (env) => env.tracing,
    make: () => new TracePhase(),
  },
];
