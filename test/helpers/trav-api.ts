// The API of the front door's attack corpus (test/fixtures/front-door/README.md) and of the issue's
// traversal attacks: an endpoint with a base path, an open /public/*, a scoped /admin, everything else open.

/** The runner's API (README.md there): `/trav/v1`, `/admin` needs a token, everything else is open. */
export function travApi(backend: string): string {
  const open = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'].map((v) => `[[resources]]
verb = "${v}"
uri_template = "/*"
auth_type = "None"
throttling_policy = "Unlimited"
`).join('\n');
  return `name = "Trav"
context = "/trav"
version = "v1"
type = "HTTP"
lifecycle_state = "PUBLISHED"
throttling_policy = "Unlimited"
[endpoints]
production = "${backend}/base"

[[resources]]
verb = "GET"
uri_template = "/public/*"
auth_type = "None"
throttling_policy = "Unlimited"

[[resources]]
verb = "GET"
uri_template = "/admin"
auth_type = "Application & Application User"
throttling_policy = "Unlimited"
scopes = ["admin:write"]

${open}`;
}
