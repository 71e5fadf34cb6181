/** Applications and users the identity tests share. */
export const WEB_APP = `name = "WebApp"
owner = "admin"
throttling_policy = "Unlimited"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "web-client"
client_secret = "web-secret"
grant_types = ["authorization_code", "refresh_token", "password"]
scopes = ["menu:read", "menu:write"]
callback_url = "https://app.example/cb"
[[subscriptions]]
api = "AcmeSecure:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
`;

export const OTHER_WEB_APP = `name = "OtherWebApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "other-web-client"
client_secret = "other-web-secret"
grant_types = ["authorization_code", "refresh_token"]
callback_url = "https://other.example/cb"
`;

export const NO_CODE_APP = `name = "NoCodeApp"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "no-code-client"
client_secret = "no-code-secret"
grant_types = ["client_credentials"]
callback_url = "https://nocode.example/cb"
`;

export const REDIRECT = 'https://app.example/cb';

/** A users file: the role menu-manager (binding menu:write), alice (holding it, with claims) and bob (no role). */
export const USERS = `[[role]]
name = "menu-manager"
scopes = ["menu:write"]

[[user]]
username = "alice"
password = "alice-secret-1"
roles = ["menu-manager"]
[user.claims]
email = "alice@example.com"
email_verified = "true"
name = "Alice Liddell"

[[user]]
username = "bob"
password = "bob-secret-1"
`;
