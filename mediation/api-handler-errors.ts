/**
 * The API handler error codes of seed 000 (Errors), with the reference system's wording, the HTTP status the
 * seed gives and the fault sequence that renders each. The gateway raises a fault by code; renderFault
 * (fault.ts) fills message, description, status and sequence from here unless the caller overrides them.
 * Transport error codes (101xxx) belong to transport/ and are rendered by `fault`.
 */

/** The shipped sequences (seed 000, fault sequences), by role. */
export const FaultSequence = {
  FAULT: 'fault',
  MAIN: 'main',
  AUTH_FAILURE: '_auth_failure_handler_',
  PRODUCTION_KEY_ERROR: '_production_key_error_',
  SANDBOX_KEY_ERROR: '_sandbox_key_error_',
  THROTTLE_OUT: '_throttle_out_handler_',
  TOKEN_FAULT: '_token_fault_',
  RESOURCE_MISMATCH: '_resource_mismatch_handler_',
  CORS_REQUEST: '_cors_request_handler_',
  THREAT_FAULT: '_threat_fault_',
  WS_DISPATCH: 'dispatchSeq',
  WS_OUT_DISPATCH: 'outDispatchSeq',
} as const;

export type FaultSequenceName = (typeof FaultSequence)[keyof typeof FaultSequence];

export const SHIPPED_SEQUENCE_NAMES: readonly FaultSequenceName[] = Object.values(FaultSequence);

export interface HandlerError {
  readonly code: number;
  /** ERROR_MESSAGE: the `message` of the fault body. */
  readonly message: string;
  /** ERROR_DETAIL: the `description` of the fault body. */
  readonly description: string;
  readonly status: number;
  readonly sequence: FaultSequenceName;
}

function e(code: number, status: number, sequence: FaultSequenceName, message: string, description: string): HandlerError {
  return { code, status, sequence, message, description };
}

const S = FaultSequence;

/** Named codes, for readable call sites (`ApiHandlerCode.INVALID_CREDENTIALS`). */
export const ApiHandlerCode = {
  API_BLOCKED: 700700,
  GRAPHQL_INVALID_QUERY: 900422,
  BACKEND_OAUTH_TEMPORARY_ERROR: 900424,
  THROTTLED_OUT: 900800,
  HARD_LIMIT_EXCEEDED: 900801,
  RESOURCE_THROTTLED_OUT: 900802,
  APPLICATION_THROTTLED_OUT: 900803,
  SUBSCRIPTION_THROTTLED_OUT: 900804,
  BLOCKED: 900805,
  CUSTOM_POLICY_THROTTLED_OUT: 900806,
  BURST_THROTTLED_OUT: 900807,
  AUTH_GENERAL_ERROR: 900900,
  INVALID_CREDENTIALS: 900901,
  MISSING_CREDENTIALS: 900902,
  INCORRECT_ACCESS_TOKEN_TYPE: 900905,
  NO_MATCHING_RESOURCE: 900906,
  API_TEMPORARILY_BLOCKED: 900907,
  RESOURCE_FORBIDDEN: 900908,
  SUBSCRIPTION_INACTIVE: 900909,
  INVALID_SCOPE: 900910,
  INVALID_BASIC_CREDENTIALS: 900911,
  INCOMPLETE_PAYLOAD: 102511,
  /** Generic sequence codes (seed 000): a request error from the client, no matching resource. */
  BAD_REQUEST: 400,
  FORBIDDEN: 403,
  /** Sluice: a request body over the cap of what the gateway reads whole (docs/security.md). */
  CONTENT_TOO_LARGE: 413,
} as const;

const THROTTLE_DESCRIPTION = 'You have exceeded your quota';

/** Seed 000's API handler error codes, keyed by code. */
export const API_HANDLER_ERRORS: ReadonlyMap<number, HandlerError> = new Map([
  e(700700, 503, S.FAULT, 'API blocked', 'This API has been blocked temporarily. Please try again later or contact the system administrators.'),
  e(900422, 422, S.FAULT, 'Invalid GraphQL query', 'Syntax of the provided GraphQL query is invalid'),
  // Seed: status "not shown". Sluice: 503, the backend's OAuth token could not be obtained (temporary).
  e(900424, 503, S.FAULT, 'Temporary Server Error', 'The backend could not be called: no valid OAuth 2.0 backend token could be obtained'),
  e(900800, 429, S.THROTTLE_OUT, 'Message throttled out', THROTTLE_DESCRIPTION),
  e(900801, 503, S.THROTTLE_OUT, 'Hard limit exceeded', 'Hard throttle limit has been reached'),
  e(900802, 429, S.THROTTLE_OUT, 'Resource level throttle out', 'Message is throttled out because resource level has exceeded'),
  e(900803, 429, S.THROTTLE_OUT, 'Application level throttle out', 'Message is throttled out because application level is exceeded'),
  e(900804, 429, S.THROTTLE_OUT, 'Subscription level throttled out', 'Message throttled out due to subscription level throttling limit reached.'),
  e(900805, 429, S.THROTTLE_OUT, 'Message blocked', 'You have been blocked from accessing the resource'),
  e(900806, 429, S.THROTTLE_OUT, 'Custom policy throttled out', 'Message throttled out due to exceeding the limit configured through the custom throttling policy rules.'),
  e(900807, 429, S.THROTTLE_OUT, 'Message throttled out', 'Message throttled out because of exceeding the burst control/rate limit (requests per second) in the subscription level policy.'),
  e(900900, 500, S.AUTH_FAILURE, 'Unclassified Authentication Failure', 'An unspecified error has occurred'),
  e(900901, 401, S.AUTH_FAILURE, 'Invalid Credentials', 'Invalid Credentials. Make sure you have provided the correct security credentials'),
  e(900902, 401, S.AUTH_FAILURE, 'Missing Credentials',
    'Invalid Credentials. Make sure your API invocation call has a header: \'Authorization : Bearer ACCESS_TOKEN\' or \'Authorization : Basic ACCESS_TOKEN\' or \'apikey: API_KEY\''),
  e(900905, 401, S.AUTH_FAILURE, 'Incorrect Access Token Type is provided',
    'The access token type used is not supported when invoking the API. The supported access token types are application and user access tokens.'),
  e(900906, 403, S.RESOURCE_MISMATCH, 'No matching resource found in the API for the given request',
    'No matching resource found in the API for the given request. Check the API documentation and add a proper REST resource path to the invocation URL'),
  e(900907, 401, S.AUTH_FAILURE, 'The requested API is temporarily blocked', 'API Subscription is blocked'),
  e(900908, 403, S.AUTH_FAILURE, 'Resource forbidden', 'The user invoking the API has not been granted access to the required resource.'),
  e(900909, 401, S.AUTH_FAILURE, 'The subscription to the API is inactive', 'The status of the API has changed to an inaccessible/unavailable state.'),
  e(900910, 403, S.AUTH_FAILURE, 'The access token does not allow you to access the requested resource',
    'Can not access the required resource with the provided access token. Check the valid resources that can be accessed with this token.'),
  // Seed: meaning "not shown", status 401. Sluice: Basic-auth credentials that do not match (an API secured by Basic auth).
  e(900911, 401, S.AUTH_FAILURE, 'Invalid Credentials', 'Make sure you have given the correct username and password'),
  e(102511, 400, S.FAULT, 'Incomplete payload',
    'The payload sent with the request is too large and the client is unable to keep the connection alive until the payload is completely transferred to the API Gateway'),
  e(400, 400, S.FAULT, 'Bad Request', 'The server cannot process the request due to an error in the request sent by the client'),
  e(403, 403, S.RESOURCE_MISMATCH, 'No matching resource found in the API for the given request',
    'No matching resource found in the API for the given request'),
  // Seed: no code. Sluice: the generic status code, like 400 and 403.
  e(413, 413, S.FAULT, 'Payload Too Large', 'The request body is larger than the gateway reads whole for this API'),
].map((x) => [x.code, x] as const));

export function handlerError(code: number): HandlerError | undefined {
  return API_HANDLER_ERRORS.get(code);
}

/** Faults raised by situation rather than by code alone (the sequence differs from the code's default). */
export const SITUATION_FAULTS = {
  /** A production key on an API without a production endpoint (seed: 900901 via _production_key_error_). */
  PRODUCTION_KEY_ERROR: e(900901, 401, S.PRODUCTION_KEY_ERROR, 'Invalid Credentials', 'Production key offered to an API with no production endpoint'),
  /** A sandbox key on an API without a sandbox endpoint (seed: 900901 via _sandbox_key_error_). */
  SANDBOX_KEY_ERROR: e(900901, 401, S.SANDBOX_KEY_ERROR, 'Invalid Credentials', 'Sandbox key offered to an API with no sandbox endpoint'),
  /** No API at all matches the path (main.xml). */
  NO_MATCHING_API: e(404, 404, S.MAIN, 'Not Found', 'No API matches the request path. Check the API context and version in the URL'),
  /** The gateway's /token or /revoke with a method other than POST (RFC 6749 §3.2); answered with Allow: POST. */
  TOKEN_API_METHOD: e(405, 405, S.TOKEN_FAULT, 'Method Not Allowed', 'The token API accepts POST only, with the parameters in a form body'),
} as const;
