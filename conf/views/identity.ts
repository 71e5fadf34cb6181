import type { Config } from '../config.js';

/** The authorization endpoint, PKCE and OpenID Connect ([sluice.oauth], [oauth.oidc], [oauth.grant_type.*]). */
export interface AuthorizationView {
  /** ms an authorization code may be exchanged. */
  readonly codeValidityMs: number;
  /** ms the login and consent pages of one request stay usable. */
  readonly loginValidityMs: number;
  readonly pkceRequired: boolean;
  readonly pkceAllowPlain: boolean;
  /** Seconds an id_token is valid (oauth.oidc.token_validation.id_token_validity). */
  readonly idTokenValidity: number;
  /** client_credentials tokens with scope openid also get an id_token (oauth.grant_type.client_credentials.allow_id_token). */
  readonly clientCredentialsIdToken: boolean;
  /** `oauth.oidc.id_token.redirect_error_page`: errors with an unusable redirect URI are shown on a page (always: never redirected). */
  readonly redirectErrorPage: boolean;
}

export function authorizationView(config: Config): AuthorizationView {
  return {
    codeValidityMs: config.get('sluice.oauth.authorization_code_validity'),
    loginValidityMs: config.get('sluice.oauth.login_validity'),
    pkceRequired: config.get('sluice.oauth.pkce_required'),
    pkceAllowPlain: config.get('sluice.oauth.pkce_allow_plain'),
    idTokenValidity: config.get('oauth.oidc.token_validation.id_token_validity'),
    clientCredentialsIdToken: config.get('oauth.grant_type.client_credentials.allow_id_token'),
    redirectErrorPage: config.get('oauth.oidc.id_token.redirect_error_page'),
  };
}
