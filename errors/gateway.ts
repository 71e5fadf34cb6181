import { family } from './error-entry.js';
import { FaultSequence as S } from './fault-sequences.js';

/**
 * Sluice's own gateway errors: situations the seed does not name, each with the code the client sees. Seed
 * 000's transport base 101510 ("Response processing failed") covers a failure of the gateway's own processing
 * of a call; the other codes are HTTP statuses used as codes, as the seed's generic 400 and 403 are.
 */
export const GatewayError = family({
  NO_MATCHING_API: {
    code: 404, status: 404, sequence: S.MAIN, message: 'Not Found', description: 'No API matches the request path. Check the API context and version in the URL',
    when: 'no API for the path (the description names the path)',
  },
  API_NOT_PUBLISHED: {
    code: 404, status: 404, sequence: S.MAIN, message: 'Not Found', description: 'The API is not published',
    when: 'the API\'s lifecycle state is CREATED or RETIRED',
  },
  TOKEN_API_METHOD: {
    code: 405, status: 405, sequence: S.TOKEN_FAULT, message: 'Method Not Allowed', description: 'The token API accepts POST only, with the parameters in a form body',
    when: 'the gateway\'s `/token` or `/revoke` with a method other than POST (RFC 6749 §3.2); answered with `Allow: POST`',
  },
  PATH_ABOVE_CONTEXT: {
    code: 400, status: 400, sequence: S.FAULT, message: 'Bad Request', description: 'The request path climbs above the API\'s context with \'..\'',
    when: 'a path whose dot-segments leave the API\'s context and come back (`/trav/v1/../../trav/v1/admin`); the connection closes after the answer',
  },
  BODY_NOT_VALID: {
    code: 400, status: 400, sequence: S.FAULT, message: 'Bad Request', description: 'The request body is not well-formed',
    when: 'a malformed JSON or XML body under `force_json_validation` / `force_xml_validation` (the description says where)',
  },
  UNSAFE_REQUEST_HEADER: {
    code: 400, status: 400, sequence: S.FAULT, message: 'Bad Request',
    description: 'A header built by mediation from the request holds a character a header may not carry (CR, LF, NUL, another control, or a character above U+00FF)',
    when: 'a header that an in sequence built from the request holds a character no header may carry; nothing reaches the backend (the API\'s fault sequence renders it)',
  },
  UPGRADE_REQUIRED: {
    code: 400, status: 426, sequence: S.FAULT, message: 'Upgrade Required', description: 'This is a WebSocket API: open it with a WebSocket handshake',
    when: 'a plain HTTP request to a WebSocket API (with `Upgrade: websocket`)',
  },
  CONTENT_TOO_LARGE: {
    code: 413, status: 413, sequence: S.FAULT, message: 'Payload Too Large', description: 'The request body is larger than the gateway reads whole for this API',
    when: 'a request body the gateway must read whole (GraphQL, body validation, a content-aware in sequence) over `[passthru_http] max_buffered_request_body_size` or the API\'s own cap; answered at once when the Content-Length says so, else as soon as the bytes read pass the cap, with `Connection: close`; nothing reaches the backend',
  },
  AT_CAPACITY: {
    code: 503, status: 503, sequence: S.FAULT, message: 'Service Unavailable', description: 'The gateway is at capacity; retry later',
    when: 'the worker pool\'s bounded queue is full',
  },
  NO_ENDPOINT: {
    code: 503, status: 503, sequence: S.FAULT, message: 'Service Unavailable', description: 'No endpoint is configured for this API',
    when: 'the call passed every phase but its API has no endpoint to send it to (before issue 19 this reused 101503, "Connection failed")',
  },
  PHASE_FAILED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'Error while processing the request',
    when: 'a gateway phase threw (a bug; the log has the phase and the stack); the description names the phase',
  },
  PHASE_DECLINED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'A gateway phase stopped the call without answering it',
    when: 'a phase returned STOP without answering the call (a bug: the runner answers for it, naming the phase; Pingora\'s fallback)',
  },
  SEQUENCE_NOT_DEPLOYED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'The in sequence of this API is not deployed',
    when: 'the API names an in sequence that is not deployed',
  },
  IN_SEQUENCE_FAILED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'The in sequence of this API failed',
    when: 'the API\'s in sequence failed on the request',
  },
  BACKEND_JWT_FAILED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'The backend JWT could not be generated',
    when: 'the backend JWT (`[apim.jwt]`) could not be signed',
  },
  WS_DISPATCH_FAILED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'A WebSocket dispatch sequence failed',
    when: 'dispatchSeq or outDispatchSeq failed on a WebSocket message: the message is dropped, and the fault sequence of the ws/wss sender may build one for the client (ERROR_DETAIL says why)',
  },
  ADDED_HEADER_UNWRITABLE: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Runtime Error', description: 'A header the gateway adds could not be written',
    when: 'a header a phase adds for the backend (from its configuration) holds a character no header may carry',
  },
  OUT_SEQUENCE_FAILED: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Response processing failed', description: 'The out sequence of this API failed',
    when: 'the API\'s out sequence failed on the response',
  },
  LOCAL_ANSWER_UNWRITABLE: {
    code: 101510, status: 500, sequence: S.FAULT, message: 'Response processing failed', description: 'The response could not be sent as built',
    when: 'a local answer (a sequence\'s response) carried a header no head may carry; the built-in fault body goes instead',
  },
  RESPONSE_TOO_LARGE: {
    code: 101510, status: 502, sequence: S.FAULT, message: 'Response processing failed',
    description: 'The backend\'s response is larger than the out sequence of this API may hold',
    when: 'the response an out sequence must hold whole is over `max_buffered_response_body_size`',
  },
  UNSAFE_RESPONSE_HEADER: {
    code: 101510, status: 502, sequence: S.FAULT, message: 'Response processing failed',
    description: 'A header built by mediation from the response holds a character a header may not carry (CR, LF, NUL, another control, or a character above U+00FF)',
    when: 'an out sequence built a header no head may carry',
  },
});

export type GatewayErrorName = keyof typeof GatewayError;
