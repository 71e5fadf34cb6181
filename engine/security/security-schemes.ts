import { ApiHandlerError } from '../../errors/api-handler.js';
import type { ApiSecurityScheme } from '../registry/types.js';
import type { Call } from '../kernel/call.js';
import { PhaseResult } from '../kernel/phase.js';
import { ApiKeyAuth, presentedApiKey } from './api-key-auth.js';
import type { BasicAuth } from './basic-auth.js';
import type { GatewaySecurity } from './gateway-security.js';

const BASIC = /^\s*basic\s/i;

const SCHEME_NAMES: Record<ApiSecurityScheme, string> = { oauth2: 'an OAuth2 bearer token', api_key: 'an API key (apikey header)', basic_auth: 'HTTP Basic' };

/**
 * An API's `security` list at the authenticate phase: an API key (header or query) when the list has
 * api_key, HTTP Basic against the user store when it has basic_auth, else the OAuth2 bearer token when it
 * has oauth2. Nothing the list accepts: 900902, naming what it accepts.
 */
export class SecuritySchemes {
  private readonly apiKeys: ApiKeyAuth;

  constructor(private readonly security: GatewaySecurity, private readonly basic: BasicAuth) {
    this.apiKeys = new ApiKeyAuth(security);
  }

  authenticate(ctx: Call, schemes: readonly ApiSecurityScheme[]): PhaseResult {
    if (schemes.includes('api_key')) {
      const key = presentedApiKey(ctx);
      if (key !== null) return this.apiKeys.authenticate(ctx, key);
    }
    const authorization = ctx.header(this.security.settings?.authHeader ?? 'authorization');
    if (schemes.includes('basic_auth') && authorization !== undefined && BASIC.test(authorization)) return this.basic.authenticate(ctx, authorization);
    if (schemes.includes('oauth2')) return this.security.authenticate(ctx);
    ctx.raise(ApiHandlerError.MISSING_CREDENTIALS, { description: `This API accepts ${schemes.map((s) => SCHEME_NAMES[s]).join(' or ')}` });
    return PhaseResult.STOP;
  }
}
