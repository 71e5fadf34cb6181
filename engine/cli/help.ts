/**
 * The CLI's help texts: `sluice --help` lists the commands, `sluice <command> --help` (or `sluice help
 * <command>`) shows one command's options and examples. README.md's "Commands" section says the same.
 */

const HOME_LINE = '  --home DIR        the Sluice home (default: $SLUICE_HOME, else ./home)';

export const COMMAND_HELP: Readonly<Record<string, string>> = {
  start: `Usage: sluice start [--home DIR] [--strict] [--with-sample-backend]

Start the roles that [server] server_role selects: the gateway on the pass-through ports (8280 HTTP,
8243 HTTPS), the key manager and admin API on the servlet ports (9443 HTTPS, 9763 HTTP), each shifted by
server.offset. Writes the process id to <home>/repository/sluice.pid and runs in the foreground until
SIGTERM or SIGINT (calls in flight finish first); SIGHUP reloads deployment.toml.

Options:
${HOME_LINE}
  --strict          unknown deployment.toml keys are errors, not warnings
  --with-sample-backend
                    also start the sample pizza backend on 127.0.0.1:9080 (what npm start does)
  -h, --help        this help

Examples:
  sluice start
  sluice start --home /var/lib/sluice --strict
  SLUICE_HOME=/var/lib/sluice sluice start
`,
  stop: `Usage: sluice stop [--home DIR] [--timeout SECONDS]

Stop the Sluice that runs with this home: SIGTERM to the process in <home>/repository/sluice.pid, then wait
until it has finished its calls in flight and exited. Exit 3 when none runs (a stale pid file is removed),
1 when it still runs after the timeout.

Options:
${HOME_LINE}
  --timeout SECONDS how long to wait for the process to exit (default 60)
  -h, --help        this help

Examples:
  sluice stop
  sluice stop --home /var/lib/sluice --timeout 120
`,
  reload: `Usage: sluice reload [--home DIR]

Reload the configuration of the Sluice that runs with this home: deployment.toml is checked first (the same
loader the node uses); when it is valid, SIGHUP goes to the process in <home>/repository/sluice.pid, which
applies what can change live and logs the keys that need a restart. A file that is not valid is reported
and no signal is sent (exit 2). API, application, policy and sequence files need no reload: they are
hot-deployed when saved.

Options:
${HOME_LINE}
  -h, --help        this help

Examples:
  sluice reload
  sluice check-config && sluice reload
`,
  'check-config': `Usage: sluice check-config [--home DIR] [--strict] [--print]

Check every file of the home with the loaders the node uses: deployment.toml, then the API
(deployment/server/apis/*.toml), application, throttling policy and sequence files. Each problem is one
line with file:line, the key and what was expected. Exit 0 when everything is valid, 2 when not.

Options:
${HOME_LINE}
  --strict          unknown deployment.toml keys are errors, not warnings
  --print           write the effective configuration (defaults and offsets applied, secrets masked) as
                    JSON on stdout
  -h, --help        this help

Examples:
  sluice check-config
  sluice check-config --home /var/lib/sluice --strict
  sluice check-config --print | jq .passthru_http
`,
  import: `Usage: sluice import openapi <spec.json|spec.yaml> [--home DIR] [--context C] [--version V] [--backend URL]
                          [--name N] [--auth-type T] [--force] [--dry-run]

Turn an OpenAPI 3.x or Swagger 2.0 document into an API file in
<home>/repository/deployment/server/apis/: one resource per path and method, scopes from the security
requirements, the production endpoint from servers (or host/basePath). \$refs inside the document and to
files beside it are resolved; remote (http) references are not fetched. A running node deploys the file
at once (hot deployment).

Options:
${HOME_LINE}
  --context C       the API's context (default: the path of the first server URL, else /<title>)
  --version V       the API's version (default: info.version)
  --backend URL     the production endpoint (default: the first server URL, variables filled with their
                    defaults)
  --name N          the API's name (default: info.title, made a single word)
  --auth-type T     auth_type of operations without a security requirement: "None" (default: what the
                    document says; operations with security: requirements get "Application & Application User")
  --force           overwrite an existing API file
  --dry-run         print the API file on stdout, write nothing
  -h, --help        this help

Examples:
  sluice import openapi petstore.yaml
  sluice import openapi ./specs/orders.json --context /orders --version 2.0.0 --backend http://10.0.0.5:8080/v2
  sluice import openapi petstore.yaml --dry-run
`,
  bench: `Usage: sluice bench --url URL [--connections N] [--duration SECONDS] [--method M] [--body TEXT]
                    [--header "Name: value"]...

Drive load at a URL with autocannon: one progress line a second (requests so far, requests/s, errors, time
left), then requests/s, latency percentiles and throughput. Exit 1 when any call failed or answered
non-2xx. Point it at your own gateway and backend only.

Options:
  --url URL         the URL to call (required)
  --connections N   concurrent connections (default 50)
  --duration S      seconds to run (default 10)
  --method M        HTTP method (default GET)
  --body TEXT       request body
  --header "K: V"   a request header; repeat for more
  -h, --help        this help

Examples:
  sluice bench --url http://127.0.0.1:8280/pizzashack/1.0.0/menu
  sluice bench --url http://127.0.0.1:8280/pizzashack/1.0.0/menu --header "Authorization: Bearer $TOKEN" --duration 30
  sluice bench --url http://127.0.0.1:8280/orders/1.0.0/ --method POST --body '{"n":1}' --header "Content-Type: application/json"
`,
};

export const GENERAL_HELP = `sluice: API gateway and OAuth2 token service

Usage: sluice <command> [options]

Commands:
  start           run the node (gateway, key manager, admin API) in the foreground
  stop            stop the node that runs with a home (pid file), after its calls in flight
  reload          check deployment.toml and make the running node reload it (SIGHUP)
  check-config    check deployment.toml and every API, application, policy and sequence file
  import openapi  turn an OpenAPI 3.x or Swagger 2.0 file into an API file
  bench           drive load at a URL and report requests/s and latency
  help [command]  this help, or one command's
  --version       the version

Run sluice <command> --help for a command's options and examples. The home is --home DIR, else
$SLUICE_HOME, else ./home.

Exit codes: 0 done; 1 the command failed (not started, stop timed out, bench saw errors); 2 a bad command
line or a configuration or file that is not valid; 3 stop or reload found no running node; 70 an internal
error (a bug: reported with a stack trace).
`;
