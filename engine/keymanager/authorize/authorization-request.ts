import type { Client } from '../directory.js';
import { parseScope } from '../scopes.js';
import { isWellFormedChallenge, type ChallengeMethod } from './pkce.js';

/** A validated authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core §3.1.2.1). */
export interface AuthorizationRequest {
  readonly clientId: string;
  /** Where the answer goes: the registered callback URL. */
  readonly redirectUri: string;
  /** Whether the request named redirect_uri (then the token request must name the same). */
  readonly redirectUriGiven: boolean;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly nonce: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: ChallengeMethod | undefined;
}

/** An error shown on the page: the client or its redirect URI cannot be trusted with it. */
export interface PageError {
  readonly kind: 'page';
  readonly status: number;
  readonly error: string;
  readonly description: string;
}

/** An error sent back to the (verified) redirect URI (RFC 6749 §4.1.2.1). */
export interface RedirectError {
  readonly kind: 'redirect';
  readonly redirectUri: string;
  readonly error: 'invalid_request' | 'unauthorized_client' | 'access_denied' | 'unsupported_response_type' | 'invalid_scope'
    | 'server_error' | 'temporarily_unavailable' | 'login_required' | 'request_not_supported' | 'request_uri_not_supported';
  readonly description: string;
  readonly state: string | undefined;
}

export interface PkcePolicy {
  readonly required: boolean;
  readonly allowPlain: boolean;
}

const MAX_STATE = 2048;
const MAX_NONCE = 512;

/** Schemes a redirect URI may never have, whatever was registered. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/**
 * The redirect URI of a client for this request: the one the request names when it is exactly (character
 * for character, RFC 9700 §4.1.3) the registered callback URL; the registered one when the request names
 * none. undefined with the reason otherwise.
 */
export function resolveRedirectUri(client: Client, given: string | null): { uri: string } | { why: string } {
  const registered = client.key.callbackUrl;
  if (!registered) return { why: `the application has no callback URL registered for client ${client.key.clientId}` };
  let parsed: URL;
  try { parsed = new URL(registered); } catch { return { why: 'the registered callback URL is not an absolute URL' }; }
  if (FORBIDDEN_SCHEMES.has(parsed.protocol) || parsed.hash) return { why: 'the registered callback URL cannot receive an authorization response' };
  if (given === null) return { uri: registered };
  if (given !== registered) return { why: 'redirect_uri does not match the callback URL registered for the application' };
  return { uri: registered };
}

/** Validates the query of GET /oauth2/authorize against the client it names (found by the caller). */
export async function validateAuthorizationRequest(
  q: URLSearchParams,
  findClient: (id: string) => Promise<Client | undefined>,
  pkce: PkcePolicy,
  grantEnabled: boolean,
): Promise<AuthorizationRequest | PageError | RedirectError> {
  const counts = new Map<string, number>();
  for (const k of q.keys()) counts.set(k, (counts.get(k) ?? 0) + 1);
  const repeated = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  const page = (status: number, error: string, description: string): PageError => ({ kind: 'page', status, error, description });
  if (repeated.includes('client_id') || repeated.includes('redirect_uri')) {
    return page(400, 'invalid_request', `the parameter ${repeated.includes('client_id') ? 'client_id' : 'redirect_uri'} is repeated`);
  }
  const clientId = q.get('client_id');
  if (!clientId) return page(400, 'invalid_request', 'client_id is missing');
  const client = await findClient(clientId);
  if (!client) return page(400, 'invalid_client', 'the client_id names no registered application');
  const given = q.get('redirect_uri');
  const resolved = resolveRedirectUri(client, given);
  if ('why' in resolved) return page(400, 'invalid_request', resolved.why);
  const rawState = q.get('state');
  const state = rawState !== null && rawState.length <= MAX_STATE && !repeated.includes('state') ? rawState : undefined;
  const fail = (error: RedirectError['error'], description: string): RedirectError => ({ kind: 'redirect', redirectUri: resolved.uri, error, description, state });
  if (repeated.length) return fail('invalid_request', `the parameter ${repeated[0]} is repeated`);
  if (rawState !== null && rawState.length > MAX_STATE) return fail('invalid_request', `state is longer than ${MAX_STATE} characters`);
  const responseType = q.get('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is missing');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code (the authorization code flow) is supported');
  const mode = q.get('response_mode');
  if (mode !== null && mode !== 'query') return fail('invalid_request', 'only response_mode=query is supported');
  if (!grantEnabled) return fail('unauthorized_client', 'the authorization_code grant is disabled (oauth.grant_type.authorization_code.enable = false)');
  if (!client.key.grantTypes.includes('authorization_code')) return fail('unauthorized_client', 'the application may not use the authorization_code grant (not in its grant types)');
  if (q.has('request')) return fail('request_not_supported', 'request objects are not supported');
  if (q.has('request_uri')) return fail('request_uri_not_supported', 'request_uri is not supported');
  let scopes: string[];
  try { scopes = parseScope(q.get('scope')); } catch (err) { return fail('invalid_scope', (err as Error).message.replace(/^invalid_scope: /, '')); }
  const nonce = q.get('nonce') ?? undefined;
  if (nonce !== undefined && (nonce.length === 0 || nonce.length > MAX_NONCE)) return fail('invalid_request', `nonce must be 1 to ${MAX_NONCE} characters`);
  const prompt = (q.get('prompt') ?? '').split(' ');
  if (prompt.includes('none')) return fail('login_required', 'prompt=none: the key manager keeps no sign-in session; the user must sign in');
  const challenge = q.get('code_challenge') ?? undefined;
  const rawMethod = q.get('code_challenge_method');
  if (rawMethod !== null && challenge === undefined) return fail('invalid_request', 'code_challenge_method without code_challenge');
  let method: ChallengeMethod | undefined;
  if (challenge !== undefined) {
    if (rawMethod !== null && rawMethod !== 'S256' && rawMethod !== 'plain') return fail('invalid_request', `code_challenge_method ${rawMethod} is not supported; use S256`);
    method = (rawMethod ?? 'plain') as ChallengeMethod;
    if (method === 'plain' && !pkce.allowPlain) {
      return fail('invalid_request', rawMethod === null
        ? 'code_challenge_method is missing, which means plain (RFC 7636 §4.3), and plain is not accepted; use S256'
        : 'code_challenge_method plain is not accepted; use S256');
    }
    if (!isWellFormedChallenge(challenge, method)) return fail('invalid_request', method === 'S256' ? 'code_challenge must be 43 base64url characters (S256)' : 'code_challenge must be 43 to 128 unreserved characters');
  } else if (pkce.required) {
    return fail('invalid_request', 'code_challenge is required (PKCE, RFC 7636); use code_challenge_method=S256');
  }
  return {
    clientId, redirectUri: resolved.uri, redirectUriGiven: given !== null, scopes, state, nonce,
    codeChallenge: challenge, codeChallengeMethod: method,
  };
}

/** The redirect URI with the answer's parameters added to its query (RFC 6749 §4.1.2: keep its own query). */
export function withParameters(uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.append(k, v);
  return u.toString();
}
