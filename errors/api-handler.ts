import { family } from './error-entry.js';
import { FaultSequence as S } from './fault-sequences.js';

const THROTTLE_DESCRIPTION = 'You have exceeded your quota';

/**
 * Seed 000's API handler error codes, with the reference system's wording, the status the seed gives and the
 * fault sequence that renders each; the seed's generic sequence codes (400, 403); and the faults the seed
 * raises by situation with a code of this table but another sequence (a production key on an API without a
 * production endpoint). Where the seed says "not shown", the decision is in the entry's `when`.
 */
export const ApiHandlerError = family({
  API_BLOCKED: {
    code: 700700, status: 503, sequence: S.FAULT, message: 'API blocked',
    description: 'This API has been blocked temporarily. Please try again later or contact the system administrators.',
    when: 'the API\'s lifecycle state is BLOCKED',
  },
  GRAPHQL_INVALID_QUERY: {
    code: 900422, status: 422, sequence: S.FAULT, message: 'Invalid GraphQL query', description: 'Syntax of the provided GraphQL query is invalid',
    when: 'a GraphQL API call whose query does not parse, or has more than `[sluice.graphql] max_tokens` tokens or a nesting deeper than `max_depth` (checked before parsing)',
  },
  BACKEND_OAUTH_TEMPORARY_ERROR: {
    // Seed: status "not shown". Sluice: 503, the backend's OAuth token could not be obtained (temporary).
    code: 900424, status: 503, sequence: S.FAULT, message: 'Temporary Server Error',
    description: 'The backend could not be called: no valid OAuth 2.0 backend token could be obtained',
    when: '(reserved: backend OAuth tokens are not implemented)',
  },
  THROTTLED_OUT: {
    code: 900800, status: 429, sequence: S.THROTTLE_OUT, message: 'Message throttled out', description: THROTTLE_DESCRIPTION,
    when: 'the API-level (advanced) policy, the API\'s `throttling_policy` (the reference system\'s API limit)',
  },
  HARD_LIMIT_EXCEEDED: {
    code: 900801, status: 503, sequence: S.THROTTLE_OUT, message: 'Hard limit exceeded', description: 'Hard throttle limit has been reached',
    when: 'the API\'s backend_max_tps',
  },
  RESOURCE_THROTTLED_OUT: {
    code: 900802, status: 429, sequence: S.THROTTLE_OUT, message: 'Resource level throttle out',
    description: 'Message is throttled out because resource level has exceeded',
    when: 'a resource-level (advanced) policy, the resource\'s `throttling_policy`',
  },
  APPLICATION_THROTTLED_OUT: {
    code: 900803, status: 429, sequence: S.THROTTLE_OUT, message: 'Application level throttle out',
    description: 'Message is throttled out because application level is exceeded',
    when: 'the application\'s policy',
  },
  SUBSCRIPTION_THROTTLED_OUT: {
    code: 900804, status: 429, sequence: S.THROTTLE_OUT, message: 'Subscription level throttled out',
    description: 'Message throttled out due to subscription level throttling limit reached.',
    when: 'the subscription\'s policy (stop_on_quota_reach)',
  },
  BLOCKED: {
    code: 900805, status: 429, sequence: S.THROTTLE_OUT, message: 'Message blocked', description: 'You have been blocked from accessing the resource',
    when: 'a block condition (user, IP, IP range, application, API)',
  },
  CUSTOM_POLICY_THROTTLED_OUT: {
    code: 900806, status: 429, sequence: S.THROTTLE_OUT, message: 'Custom policy throttled out',
    description: 'Message throttled out due to exceeding the limit configured through the custom throttling policy rules.',
    when: 'a custom policy',
  },
  BURST_THROTTLED_OUT: {
    code: 900807, status: 429, sequence: S.THROTTLE_OUT, message: 'Message throttled out',
    description: 'Message throttled out because of exceeding the burst control/rate limit (requests per second) in the subscription level policy.',
    when: 'the subscription\'s burst control',
  },
  AUTH_GENERAL_ERROR: {
    code: 900900, status: 500, sequence: S.AUTH_FAILURE, message: 'Unclassified Authentication Failure', description: 'An unspecified error has occurred',
    when: 'the key manager cannot be reached for key validation, or refuses the call; the gateway has no security settings yet',
  },
  INVALID_CREDENTIALS: {
    code: 900901, status: 401, sequence: S.AUTH_FAILURE, message: 'Invalid Credentials',
    description: 'Invalid Credentials. Make sure you have provided the correct security credentials',
    when: 'a token that is malformed, badly signed, of a disallowed algorithm, expired, not yet valid, of another issuer or audience, revoked or inactive, or longer than `[passthru_http] max_bearer_token_bytes`; a client certificate not allowed',
  },
  MISSING_CREDENTIALS: {
    code: 900902, status: 401, sequence: S.AUTH_FAILURE, message: 'Missing Credentials',
    description: 'Invalid Credentials. Make sure your API invocation call has a header: \'Authorization : Bearer ACCESS_TOKEN\' or \'Authorization : Basic ACCESS_TOKEN\' or \'apikey: API_KEY\'',
    when: 'no token in the auth header (nor any credential an API\'s security schemes accept)',
  },
  INCORRECT_ACCESS_TOKEN_TYPE: {
    code: 900905, status: 401, sequence: S.AUTH_FAILURE, message: 'Incorrect Access Token Type is provided',
    description: 'The access token type used is not supported when invoking the API. The supported access token types are application and user access tokens.',
    when: 'an application token on a user-only resource, or the reverse',
  },
  NO_MATCHING_RESOURCE: {
    code: 900906, status: 403, sequence: S.RESOURCE_MISMATCH, message: 'No matching resource found in the API for the given request',
    description: 'No matching resource found in the API for the given request. Check the API documentation and add a proper REST resource path to the invocation URL',
    when: 'no resource for the verb and path',
  },
  API_TEMPORARILY_BLOCKED: {
    code: 900907, status: 401, sequence: S.AUTH_FAILURE, message: 'The requested API is temporarily blocked', description: 'API Subscription is blocked',
    when: 'the subscription is BLOCKED (or PROD_ONLY_BLOCKED with a production key)',
  },
  RESOURCE_FORBIDDEN: {
    code: 900908, status: 403, sequence: S.AUTH_FAILURE, message: 'Resource forbidden',
    description: 'The user invoking the API has not been granted access to the required resource.',
    when: 'the application has no subscription to the API (HTTP and WebSocket APIs alike)',
  },
  SUBSCRIPTION_INACTIVE: {
    code: 900909, status: 401, sequence: S.AUTH_FAILURE, message: 'The subscription to the API is inactive',
    description: 'The status of the API has changed to an inaccessible/unavailable state.',
    when: 'the subscription is ON_HOLD or REJECTED',
  },
  INVALID_SCOPE: {
    code: 900910, status: 403, sequence: S.AUTH_FAILURE, message: 'The access token does not allow you to access the requested resource',
    description: 'Can not access the required resource with the provided access token. Check the valid resources that can be accessed with this token.',
    when: 'the token has none of the resource\'s scopes',
  },
  INVALID_BASIC_CREDENTIALS: {
    // Seed: meaning "not shown", status 401. Sluice: Basic-auth credentials that do not match.
    code: 900911, status: 401, sequence: S.AUTH_FAILURE, message: 'Invalid Credentials', description: 'Make sure you have given the correct username and password',
    when: 'wrong user or password at an API secured by Basic auth (`security = ["basic_auth"]`); with Retry-After while the sign-in back-off holds',
  },
  INCOMPLETE_PAYLOAD: {
    code: 102511, status: 400, sequence: S.FAULT, message: 'Incomplete payload',
    description: 'The payload sent with the request is too large and the client is unable to keep the connection alive until the payload is completely transferred to the API Gateway',
    when: 'the client ended its side of the connection before its request body was complete (answered when the connection can still carry it, else logged)',
  },
  BAD_REQUEST: {
    code: 400, status: 400, sequence: S.FAULT, message: 'Bad Request',
    description: 'The server cannot process the request due to an error in the request sent by the client',
    when: 'seed 000\'s generic code for a request error from the client (the front door and the gateway use it with a description saying which rule)',
  },
  FORBIDDEN: {
    code: 403, status: 403, sequence: S.RESOURCE_MISMATCH, message: 'No matching resource found in the API for the given request',
    description: 'No matching resource found in the API for the given request',
    when: 'seed 000\'s generic code for no matching resource (not raised by Sluice, which answers 900906)',
  },
  PRODUCTION_KEY_ERROR: {
    code: 900901, status: 401, sequence: S.PRODUCTION_KEY_ERROR, message: 'Invalid Credentials',
    description: 'Production key offered to an API with no production endpoint',
    when: 'a production key on an API with no production endpoint',
  },
  SANDBOX_KEY_ERROR: {
    code: 900901, status: 401, sequence: S.SANDBOX_KEY_ERROR, message: 'Invalid Credentials',
    description: 'Sandbox key offered to an API with no sandbox endpoint',
    when: 'a sandbox key on an API with no sandbox endpoint',
  },
});

export type ApiHandlerErrorName = keyof typeof ApiHandlerError;
