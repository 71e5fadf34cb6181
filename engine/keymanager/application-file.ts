import { parse, TomlError } from 'smol-toml';
import { SourceLocator } from '../../conf/source-locator.js';
import type { KeyType, SubscriptionState, TokenType } from '../registry/types.js';
import { isSecretHash } from './secret-hash.js';

/** A problem in an application file, located as precisely as the source allows. */
export class ApplicationFileError extends Error {
  readonly code = 'SLUICE_APPLICATION_FILE_INVALID';
  constructor(readonly file: string, readonly problem: string, readonly line?: number, readonly column?: number) {
    super(`${file}${line !== undefined ? `:${line}${column !== undefined ? `:${column}` : ''}` : ''}: ${problem}`);
    this.name = 'ApplicationFileError';
  }
}

/** One key as written: the secret is still clear (or a hash given by the operator). */
export interface ParsedKey {
  readonly keyType: KeyType;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly clientSecretHash?: string;
  readonly grantTypes: readonly string[];
  readonly scopes: readonly string[];
  readonly callbackUrl?: string;
  /** The [[apim.jwt.issuer]] whose tokens this key stands for (it then has no secret of its own). */
  readonly keyManager?: string;
}

/** The stored "hash" of a key that belongs to an external issuer: not a scrypt hash, so no secret verifies. */
export const NO_SECRET = '!external';

export interface ParsedApplication {
  readonly name: string;
  readonly owner: string;
  readonly throttlingPolicy: string;
  readonly tokenType: TokenType;
  readonly keys: readonly ParsedKey[];
  readonly subscriptions: readonly { readonly api: string; readonly throttlingPolicy: string; readonly state: SubscriptionState }[];
  /** Unknown fields, reported as warnings (accepted for forward compatibility). */
  readonly warnings: readonly string[];
}

export const DEFAULT_GRANT_TYPES = ['client_credentials', 'password', 'refresh_token'] as const;
const TOP = new Set(['name', 'owner', 'throttling_policy', 'token_type', 'description', 'keys', 'subscriptions', 'attributes']);
const KEY_FIELDS = new Set(['key_type', 'client_id', 'client_secret', 'client_secret_hash', 'grant_types', 'scopes', 'callback_url', 'key_manager']);
const SUB_FIELDS = new Set(['api', 'throttling_policy', 'state']);
const SUB_STATES: readonly SubscriptionState[] = ['UNBLOCKED', 'BLOCKED', 'PROD_ONLY_BLOCKED', 'ON_HOLD', 'REJECTED'];
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,255}$/;

/**
 * Reads one `applications/*.toml` file (DESIGN.md, docs/tokens.md): one application with its `[[keys]]`
 * and `[[subscriptions]]`. Throws ApplicationFileError naming file, line and column.
 */
export function parseApplicationFile(text: string, file: string, defaultOwner: string): ParsedApplication {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      throw new ApplicationFileError(file, `TOML syntax error: ${first}`, err.line, err.column);
    }
    throw new ApplicationFileError(file, `cannot be read: ${(err as Error).message}`);
  }
  const loc = new SourceLocator(text);
  const fail = (path: string, problem: string): never => { throw new ApplicationFileError(file, `${path}: ${problem}`, loc.lineOf(path)); };
  const warnings: string[] = [];
  const str = (obj: Record<string, unknown>, key: string, path: string, required: boolean): string | undefined => {
    const v = obj[key];
    if (v === undefined) { if (required) fail(path, 'is required'); return undefined; }
    if (typeof v !== 'string') return fail(path, `must be a string, found ${typeOf(v)}`);
    if (required && v.trim() === '') fail(path, 'must not be empty');
    return v;
  };
  const strList = (obj: Record<string, unknown>, key: string, path: string): string[] | undefined => {
    const v = obj[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return fail(path, 'must be a list of strings');
    return v as string[];
  };
  for (const k of Object.keys(doc)) if (!TOP.has(k)) warnings.push(`${file}:${loc.lineOf(k) ?? '?'}: unknown field "${k}" ignored`);

  const name = str(doc, 'name', 'name', true)!;
  const owner = str(doc, 'owner', 'owner', false) ?? defaultOwner;
  const throttlingPolicy = str(doc, 'throttling_policy', 'throttling_policy', false) ?? 'Unlimited';
  const tt = (str(doc, 'token_type', 'token_type', false) ?? 'JWT').toUpperCase();
  if (tt !== 'JWT' && tt !== 'OPAQUE') fail('token_type', `must be "JWT" or "OPAQUE", found "${String(doc['token_type'])}"`);

  const rawKeys = doc['keys'] ?? [];
  if (!Array.isArray(rawKeys)) fail('keys', 'must be written as [[keys]] tables');
  const keys: ParsedKey[] = [];
  (rawKeys as unknown[]).forEach((raw, i) => {
    const p = `keys[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(p, 'must be a table');
    const k = raw as Record<string, unknown>;
    for (const f of Object.keys(k)) if (!KEY_FIELDS.has(f)) warnings.push(`${file}:${loc.lineOf(`${p}.${f}`) ?? '?'}: unknown field "${f}" in [[keys]] ignored`);
    const keyType = (str(k, 'key_type', `${p}.key_type`, false) ?? 'PRODUCTION').toUpperCase();
    if (keyType !== 'PRODUCTION' && keyType !== 'SANDBOX') fail(`${p}.key_type`, `must be "PRODUCTION" or "SANDBOX", found "${String(k['key_type'])}"`);
    if (keys.some((x) => x.keyType === keyType)) fail(`${p}.key_type`, `a second ${keyType} key; an application has at most one of each`);
    const clientId = str(k, 'client_id', `${p}.client_id`, true)!;
    if (!CLIENT_ID.test(clientId)) fail(`${p}.client_id`, 'may hold only letters, digits and . _ ~ - (1 to 255 characters)');
    if (keys.some((x) => x.clientId === clientId)) fail(`${p}.client_id`, `"${clientId}" is used twice`);
    const secret = str(k, 'client_secret', `${p}.client_secret`, false);
    const secretHash = str(k, 'client_secret_hash', `${p}.client_secret_hash`, false);
    const keyManager = str(k, 'key_manager', `${p}.key_manager`, false);
    if (keyManager !== undefined && (secret !== undefined || secretHash !== undefined)) fail(p, 'a key of an external issuer (key_manager) has no client_secret: its tokens come from that issuer');
    if (keyManager === undefined && secret === undefined && secretHash === undefined) fail(p, 'needs client_secret or client_secret_hash (or key_manager, for a client of an external issuer)');
    if (secret !== undefined && secretHash !== undefined) fail(p, 'has both client_secret and client_secret_hash; keep one');
    if (secret !== undefined && secret.length === 0) fail(`${p}.client_secret`, 'must not be empty');
    if (secretHash !== undefined && !isSecretHash(secretHash)) fail(`${p}.client_secret_hash`, 'is not a scrypt hash (scrypt$N$r$p$salt$hash; see docs/tokens.md)');
    const grantTypes = strList(k, 'grant_types', `${p}.grant_types`) ?? [...DEFAULT_GRANT_TYPES];
    const scopes = strList(k, 'scopes', `${p}.scopes`) ?? [];
    for (const s of scopes) if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)) fail(`${p}.scopes`, `scope "${s}" holds characters RFC 6749 does not allow (spaces, quotes, backslashes)`);
    const callbackUrl = str(k, 'callback_url', `${p}.callback_url`, false);
    keys.push({
      keyType: keyType as KeyType, clientId, grantTypes, scopes,
      ...(secret !== undefined ? { clientSecret: secret } : {}),
      ...(secretHash !== undefined ? { clientSecretHash: secretHash } : {}),
      ...(callbackUrl ? { callbackUrl } : {}),
      ...(keyManager !== undefined ? { keyManager, clientSecretHash: NO_SECRET } : {}),
    });
  });

  const rawSubs = doc['subscriptions'] ?? [];
  if (!Array.isArray(rawSubs)) fail('subscriptions', 'must be written as [[subscriptions]] tables');
  const subscriptions: ParsedApplication['subscriptions'][number][] = [];
  (rawSubs as unknown[]).forEach((raw, i) => {
    const p = `subscriptions[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(p, 'must be a table');
    const s = raw as Record<string, unknown>;
    for (const f of Object.keys(s)) if (!SUB_FIELDS.has(f)) warnings.push(`${file}:${loc.lineOf(`${p}.${f}`) ?? '?'}: unknown field "${f}" in [[subscriptions]] ignored`);
    const api = str(s, 'api', `${p}.api`, true)!;
    if (!/^[^:]+:[^:]+$/.test(api)) fail(`${p}.api`, `must be "name:version", found "${api}"`);
    if (subscriptions.some((x) => x.api === api)) fail(`${p}.api`, `"${api}" is subscribed twice`);
    const state = (str(s, 'state', `${p}.state`, false) ?? 'UNBLOCKED').toUpperCase();
    if (!SUB_STATES.includes(state as SubscriptionState)) fail(`${p}.state`, `must be one of ${SUB_STATES.join(', ')}, found "${String(s['state'])}"`);
    subscriptions.push({ api, throttlingPolicy: str(s, 'throttling_policy', `${p}.throttling_policy`, false) ?? 'Unlimited', state: state as SubscriptionState });
  });

  return { name, owner, throttlingPolicy, tokenType: tt as TokenType, keys, subscriptions, warnings };
}

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (v instanceof Date) return 'a date';
  return typeof v === 'object' ? 'a table' : `a ${typeof v}`;
}
