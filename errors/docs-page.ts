import { AdminApiError } from './admin-api.js';
import { ApiHandlerError } from './api-handler.js';
import { DoorError } from './front-door.js';
import { GatewayError } from './gateway.js';
import { TransportError } from './transport.js';
import type { ErrorEntry } from './error-entry.js';

/**
 * docs/errors.md, written from the catalogue so that the page cannot drift from the codes the gateway sends
 * (`npm run docs:errors` writes it; test/errors/docs-page.test.ts fails when the committed page is stale).
 */

const cell = (s: string): string => s.replace(/\|/g, '\\|');

function table(head: string, rows: readonly string[][]): string {
  const cols = head.split('|').length;
  return [`| ${head.split('|').join(' | ')} |`, `|${'---|'.repeat(cols)}`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
}

const entries = <T extends ErrorEntry>(f: Readonly<Record<string, T>>): T[] => Object.values(f);

const INTRO = `# Errors

<!-- Generated from errors/ by \`npm run docs:errors\`; edit the catalogue, not this page. -->

Every error a client sees is rendered by a fault sequence (docs/mediation.md): the gateway sets
\`ERROR_CODE\`, \`ERROR_MESSAGE\`, \`ERROR_DETAIL\` and \`HTTP_SC\`, and runs the sequence the seed names for the
error; the shipped sequences answer with the seed's JSON fault body:

\`\`\`json
{"fault":{"code":900901,"type":"Status report","message":"Invalid Credentials","description":"Invalid Credentials. Make sure you have provided the correct security credentials"}}
\`\`\`

An API may name its own \`fault_sequence\`; operators may replace any shipped sequence. Request headers are
never echoed in a fault.

Each error below is a named constant of the catalogue in \`errors/\` (the name column): the code only ever
appears there, and code raises errors by name (docs/architecture.md says how to add one). Where two names
share a code, the seed does so (900901 with another sequence) or the code is an HTTP status used as a code.`;

const TRANSPORT = `## Transport errors (pass-through sender)

Code = base + protocol state for connection-level errors (seed 000); the \`description\` names the base
error and the state (\`"Connection timed out in REQUEST_DONE"\`), because the sums collide with other bases.
The log line has \`code\`, \`base\`, \`state\` and the cause (\`reason\`, with the backend address — never sent to
the client).`;

const AFTER_TRANSPORT = `A failure after the response status went out cannot be reported in a body: the client connection is closed,
so the client sees an incomplete response, never a truncated one passed as whole.`;

const HANDLER = '## API handler errors (seed 000)';

const AFTER_HANDLER = `401 faults carry \`WWW-Authenticate: Bearer realm="Sluice"\` (with \`error="invalid_token"\` and an
\`error_description\` for 900901, \`error="insufficient_scope"\` for 900910). Throttling faults carry
\`Retry-After\` (docs/throttling.md).`;

const DOOR = `## Front door refusals

Refused before any gateway phase runs (docs/security.md, "The front door"): the fault body through \`fault\`,
\`Connection: close\`, and the connection closes after it. The \`description\` names the rule.`;

const OWN = `## Sluice's own gateway errors

Situations the seed does not name. The 400, 413 and 502 answers of the secure-by-default limits
(docs/security.md) run the API's \`fault_sequence\` when it has one; their descriptions say which limit and
never quote the offending value.`;

const ADMIN = `## Admin API errors

The admin API (docs/admin-api.md) answers its own errors as JSON \`{code, message, description}\` with the HTTP
status as the code, never through a fault sequence: 400 for a bad field (the description names it), 401, 403
(not from loopback, or a missing role), 404, 405 with \`Allow\`, 409 for a name taken, 415 for a body that is not
JSON, 429 with \`Retry-After\` while the sign-in back-off holds. Raised by situation:`;

const TOKENS = `## Token service errors

The key manager answers RFC 6749 §5.2 JSON (\`invalid_request\`, \`invalid_client\` with 401 and
\`WWW-Authenticate: Basic\`, \`invalid_grant\`, \`unauthorized_client\`, \`unsupported_grant_type\`,
\`invalid_scope\`): docs/tokens.md. Through the gateway's \`/token\` these pass unchanged; a key manager that
cannot be reached answers through \`_token_fault_\`.`;

const statusOf = (e: ErrorEntry): string => String(e.status);

export function errorsPage(): string {
  const transport = table('base|name|seed detail|when Sluice raises it|HTTP status|states seen',
    entries(TransportError).map((e) => [String(e.code), e.name, e.message, e.when, statusOf(e), e.statesSeen]));
  const handler = table('code|name|message|status|sequence|raised when',
    entries(ApiHandlerError).map((e) => [String(e.code), e.name, e.message, statusOf(e), e.sequence, e.when]));
  const door = table('code|name|message|status|refused when',
    entries(DoorError).map((e) => [String(e.code), e.name, e.message, statusOf(e), e.when]));
  const own = table('code|name|message|status|sequence|raised when',
    entries(GatewayError).map((e) => [String(e.code), e.name, e.message, statusOf(e), e.sequence, e.when]));
  const admin = table('code|name|message|status|raised when',
    Object.values(AdminApiError).map((e) => [String(e.code), e.name, e.message, String(e.status), e.when]));
  return [INTRO, TRANSPORT, transport, AFTER_TRANSPORT, HANDLER, handler, AFTER_HANDLER, DOOR, door, OWN, own, ADMIN, admin, TOKENS].join('\n\n') + '\n';
}
