import type { AuthorizationView } from '../../../conf/views/identity.js';
import type { OAuthView } from '../../../conf/views/keymanager.js';
import type { TrustedIssuers } from '../../external-issuers/trusted-issuers.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../log/logger.js';
import type { ApimStore, TokenWriter } from '../../store/index.js';
import type { AuthBackoff } from '../auth-backoff.js';
import type { ClientDirectory } from '../directory.js';
import type { SigningKeys } from '../signing-keys.js';
import type { TokenCodec } from '../token-crypto.js';
import type { RoleScopes } from '../user-store/role-scopes.js';
import type { UserStore } from '../user-store/user-store.js';

export interface TokenServiceOptions {
  readonly store: ApimStore;
  readonly writer: TokenWriter;
  readonly clients: ClientDirectory;
  readonly users: UserStore;
  /** The back-off of failed authentications, shared with the admin API's logins. */
  readonly backoff: AuthBackoff;
  readonly roleScopes: RoleScopes;
  readonly authz: AuthorizationView;
  /** [[apim.jwt.issuer]]: issuers whose assertions the jwt-bearer grant accepts. */
  readonly trustedIssuers: TrustedIssuers;
  readonly keys: SigningKeys;
  readonly codec: TokenCodec;
  readonly bus: EventBus;
  readonly oauth: OAuthView;
  readonly retryCount: number;
  /** [apim.key_manager] credentials the gateway presents to the introspection endpoint. */
  readonly validation: { readonly username: string; readonly password: string | undefined };
  readonly log: Logger;
  readonly now?: () => number;
  /** The random text of opaque access tokens and refresh tokens (tests force clashes with it). */
  readonly randomToken?: () => string;
  /** The jti of JWT access tokens. */
  readonly randomId?: () => string;
}
