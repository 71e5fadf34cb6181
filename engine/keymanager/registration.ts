import crypto from 'node:crypto';
import type { ApplicationDefinition, KeyType, TokenType } from '../registry/types.js';
import { ApplicationConflictError, type ApimStore } from '../store/index.js';
import { basicCredentials } from './client-auth.js';
import { InvalidClientError, InvalidClientMetadataError } from './errors.js';
import { hashSecret } from './secret-hash.js';
import { randomToken } from './token-crypto.js';
import { ADMIN_ROLE, type UserDirectory } from './users.js';
import type { StateSealer } from './authorize/sealed-state.js';

/** A registered client's secret is sealed for it alone (bound to its client id), without expiry. */
const SECRET_PURPOSE = 'registered-client-secret';
const FOREVER_MS = 100 * 365 * 24 * 3600 * 1000;

/** The reference system's client registration request (v0.14 / v0.15). */
export interface RegistrationRequest {
  readonly clientName: string;
  readonly owner?: string;
  /** Space-separated grant types. */
  readonly grantType?: string;
  readonly callbackUrl?: string;
  readonly saasApp?: boolean;
  /** Sluice: "JWT" (default) or "OPAQUE". */
  readonly tokenType?: string;
  /** Sluice: "PRODUCTION" (default) or "SANDBOX". */
  readonly keyType?: string;
  /** Sluice: scopes the key may be granted (space-separated or a list). */
  readonly tokenScope?: string | readonly string[];
  /** Sluice: application-level throttling policy (default Unlimited). */
  readonly throttlingPolicy?: string;
}

export interface RegistrationResponse {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly clientName: string;
  readonly callBackURL: string | null;
  readonly isSaasApplication: boolean;
  readonly appOwner: string;
  readonly jsonString: string;
  readonly jsonAppAttribute: string;
  readonly tokenType: string;
}

export const DEFAULT_REGISTRATION_GRANTS = 'client_credentials password refresh_token';

/**
 * POST /client-registration/v0.14|v0.15/register: an administrator (HTTP Basic, a user with the admin
 * role, the super admin by default) creates an application with one key. The application is named
 * `<owner>_<clientName>` as the reference system names it, kept in the store (source "registration"), and
 * answered with the client id and the clear secret. Registering the same name again for the same owner
 * answers the existing keys (200), as the reference system does: the secret is kept sealed (AES-GCM under a
 * key derived from the signing key, bound to the client id) beside its hash for that. A name held by a file
 * or the admin API, or an application without a sealed secret, is refused (409).
 */
export class ClientRegistration {
  constructor(
    private readonly store: ApimStore,
    private readonly users: UserDirectory,
    private readonly onChange: () => Promise<void>,
    private readonly sealer: StateSealer,
  ) {}

  async authenticate(authorization: string | undefined, from: string): Promise<string> {
    const basic = basicCredentials(authorization);
    if (!basic) throw new InvalidClientError('HTTP Basic authentication as an administrator is required');
    const user = await this.users.login(basic.id, basic.secret, from);
    if (!user || !user.roles.includes(ADMIN_ROLE)) throw new InvalidClientError('administrator credentials are required');
    return user.username;
  }

  async register(body: unknown, caller: string): Promise<RegistrationResponse> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InvalidClientMetadataError('the body must be a JSON object');
    const r = body as Record<string, unknown>;
    const text = (k: string): string | undefined => {
      const v = r[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw new InvalidClientMetadataError(`${k} must be a string`);
      return v;
    };
    const clientName = text('clientName');
    if (!clientName || !clientName.trim()) throw new InvalidClientMetadataError('clientName is required');
    if (!/^[A-Za-z0-9 ._~-]{1,200}$/.test(clientName)) throw new InvalidClientMetadataError('clientName may hold letters, digits, spaces and . _ ~ - (200 at most)');
    const owner = text('owner') || caller;
    const grants = (text('grantType') ?? DEFAULT_REGISTRATION_GRANTS).split(/[\s,]+/).filter(Boolean);
    if (grants.length === 0) throw new InvalidClientMetadataError('grantType names no grant');
    const callbackUrl = text('callbackUrl');
    const saas = r['saasApp'];
    if (saas !== undefined && typeof saas !== 'boolean') throw new InvalidClientMetadataError('saasApp must be true or false');
    const tokenType = (text('tokenType') ?? 'JWT').toUpperCase();
    if (tokenType !== 'JWT' && tokenType !== 'OPAQUE') throw new InvalidClientMetadataError('tokenType must be JWT or OPAQUE');
    const keyType = (text('keyType') ?? 'PRODUCTION').toUpperCase();
    if (keyType !== 'PRODUCTION' && keyType !== 'SANDBOX') throw new InvalidClientMetadataError('keyType must be PRODUCTION or SANDBOX');
    const rawScopes = r['tokenScope'];
    let scopes: string[] = [];
    if (typeof rawScopes === 'string') scopes = rawScopes.split(' ').filter(Boolean);
    else if (Array.isArray(rawScopes) && rawScopes.every((s) => typeof s === 'string')) scopes = rawScopes as string[];
    else if (rawScopes !== undefined) throw new InvalidClientMetadataError('tokenScope must be a string or a list of strings');
    const name = `${owner}_${clientName}`;
    const clientId = crypto.randomBytes(18).toString('base64url');
    const clientSecret = randomToken();
    const app: ApplicationDefinition = {
      name,
      owner,
      throttlingPolicy: text('throttlingPolicy') ?? 'Unlimited',
      tokenType: tokenType as TokenType,
      keys: [{
        keyType: keyType as KeyType, clientId, clientSecretHash: await hashSecret(clientSecret), grantTypes: grants, scopes,
        ...(callbackUrl ? { callbackUrl } : {}),
      }],
      subscriptions: [],
      source: 'registration',
    };
    const existing = await this.store.applications.get(name);
    if (existing) return this.existing(existing, saas === true);
    try {
      await this.store.applications.put(app);
    } catch (err) {
      if (err instanceof ApplicationConflictError) throw new InvalidClientMetadataError(err.message, 409);
      throw err;
    }
    await this.store.applications.setSealedSecret(clientId, this.sealer.seal(SECRET_PURPOSE, clientId, FOREVER_MS, clientSecret));
    await this.onChange();
    return response(app, app.keys[0]!, clientSecret, saas === true);
  }

  /** The same owner registering the same client name again: its keys, when Sluice registered it. */
  private async existing(app: ApplicationDefinition, saas: boolean): Promise<RegistrationResponse> {
    const key = app.keys[0];
    const sealed = key && app.source === 'registration' ? await this.store.applications.sealedSecret(key.clientId) : null;
    const secret = sealed && key ? this.sealer.unseal<string>(SECRET_PURPOSE, key.clientId, sealed) : undefined;
    if (!key || !secret || !secret.ok) throw new InvalidClientMetadataError(`an application named "${app.name}" already exists and its secret cannot be given again`, 409);
    return response(app, key, secret.value, saas);
  }
}

function response(app: ApplicationDefinition, key: ApplicationDefinition['keys'][number], clientSecret: string, saas: boolean): RegistrationResponse {
  return {
    clientId: key.clientId,
    clientSecret,
    clientName: app.name,
    callBackURL: key.callbackUrl ?? null,
    isSaasApplication: saas,
    appOwner: app.owner,
    jsonString: JSON.stringify({ grant_types: key.grantTypes.join(' '), redirect_uris: key.callbackUrl ?? '', client_name: app.name }),
    jsonAppAttribute: '{}',
    tokenType: app.tokenType,
  };
}
