// The help pages of the `mcpwire` command: one for the command, one for each of its commands
// (`mcpwire serve --help`, `mcpwire call --help`, or `mcpwire help serve`).

export const MAIN_HELP = `Usage: mcpwire <command> [options]

Commands:
  serve    Serve your MCP server (a module exporting it), or the demo one, over Streamable HTTP
           at http://127.0.0.1:3000/mcp, with the legacy HTTP+SSE endpoints (/sse, /messages)
           beside it, or over stdio
  call     Connect to an MCP server (a URL, or a command over stdio), run one action, print its result
  connect  Serve a remote MCP server (a URL) over stdio, for clients that only start commands

Examples:
  mcpwire serve
  mcpwire serve ./server.js
  mcpwire call http://127.0.0.1:3000/mcp tools
  mcpwire call tools -- node server.js
  mcpwire connect https://example.com/mcp

Run \`mcpwire <command> --help\` (or \`mcpwire help <command>\`) for the options of a command.

Options:
  -h, --help         Show this help
  -v, --version      Show the version
`;

export const SERVE_HELP = `Usage: mcpwire serve [options] [MODULE]
       mcpwire serve [options] -- CMD [ARGS…]

Serves an MCP server over Streamable HTTP at http://127.0.0.1:3000/mcp, both protocol eras
(2026-07-28 and 2025-11-25 sessions) on one endpoint, with the legacy HTTP+SSE endpoints (/sse,
/messages) beside it. Ctrl-C finishes requests in flight (up to 5 s) before it exits. For load
balancers and orchestrators, GET /health answers 200 while the process runs, and GET /ready 200
while /mcp serves, else 503 with the reason (the server behind a bridge restarting).

MODULE is yours: a .js or .mjs file (.ts where Node strips types) whose default export, or export
"server", is a Server of mcpwire/server or a function that returns one. The function is given
what this command's options call for (requestStateKeys, logger, onerror, and under --redis a
shared taskStore): spread it into the Server's options. Without MODULE, the demo server.

CMD is any stdio MCP server (npx -y @modelcontextprotocol/server-everything stdio, a python
script…): serve starts it and serves it to every client, in both eras, with every option
above. Clients' request ids, progress tokens and cancellations never reach each other; the
child's list changes, resource updates and logs reach the clients; its sampling and
elicitation requests go to the client whose request made them (input rounds for 2026
clients). A child that exits fails the requests it had (saying how it ended and its last
stderr lines) and is started again, with a growing pause; meanwhile /mcp answers 503 with
Retry-After. Its stderr goes to this stderr.

Options:
  --port N         Port to listen on (default 3000; 0 picks a free one)
  --host H         Address to bind (default 127.0.0.1)
  --stateless      No sessions: each POST is served on its own
  --json           Answer requests with one JSON body instead of an SSE stream
  --no-legacy-sse  Serve only the Streamable HTTP endpoint
  --allowed-host H   A Host name clients use (repeatable; needed when binding beyond loopback)
  --allowed-origin O An Origin let through the DNS-rebinding check (repeatable)
  --cors-origin O  An origin (https://app.example.com) whose web pages may call this server:
                   CORS preflights answered, answers readable there (repeatable)
  --stdio          Serve on this process's stdin/stdout instead (logs go to stderr)
  --watch          Reload MODULE when a file of its folder changes (node_modules and dot-files
                   aside): a new process loads it and serves, then the old one finishes its
                   requests in flight and stops; an edit that does not load leaves the old one serving
  --skills DIR     Serve the agent skills in DIR (a folder per skill, each with a SKILL.md and
                   its files) beside the server's own tools, as the Skills extension says; DIR is
                   read again when it changes, and clients told the list changed
  --redis URL      Share sessions and their streams through Redis (redis://host:port), so that
                   any process serving with the same URL can answer any request of any session
  --redis-cluster NODES
                   The same through a Redis Cluster: a few of its nodes, host:port (or
                   redis://[user:pass@]host:port) separated by commas; the others are found
  --workers N      Serve from N processes sharing the port, restarted when one dies;
                   N > 1 needs --redis or --redis-cluster (shared sessions) unless --stateless
  --oauth-issuer URL --oauth-introspection URL
                   Take only OAuth access tokens of that authorization server, checked at its
                   introspection endpoint (RFC 7662) with the credentials in the environment
                   variables MCPWIRE_INTROSPECTION_CLIENT_ID and MCPWIRE_INTROSPECTION_CLIENT_SECRET
  --oauth-issuer URL --oauth-jwks URL
                   The same for JWT access tokens, checked here against the keys the authorization
                   server publishes at that URL (its jwks_uri), fetched again for a key not known yet
  --oauth-scope S  A scope every token must have (repeatable)
  --oauth-resource URL
                   The server's public URL, which tokens must be for (default: the bound one)
  --oauth-dpop accept|require
                   Take tokens bound to the client's key (DPoP, RFC 9449), each request with a
                   new proof of that key, beside Bearer ones (accept) or only them (require);
                   a bound token is never taken as Bearer
  --token-env NAME Take only requests with Authorization: Bearer and one of the tokens in the
                   environment variable NAME (separated by commas; 32 characters or more each,
                   "openssl rand -hex 32" makes one): keys you hand out, where there is no
                   authorization server. Each token is a principal of its own, token:<digest>
  --rate-limit N   Requests one caller (its token's principal, else its address) may send per
                   minute; past it 429 with Retry-After (on --stdio, a JSON-RPC error -32000
                   naming the bound). With --redis, counted over every process
  --max-in-flight N
                   Requests one caller may have in flight at once; past it 429 (or -32000).
                   With --redis, counted over every process
  --max-body SIZE  The largest request body, in bytes or with KiB or MiB (default 4MiB, at most
                   511MiB); past it 413 with a JSON-RPC error. With --stdio, the longest message
                   line (default 16MiB); past it -32600 with the request's id
  --session-idle-timeout MS
                   Close a session unused for this long (default 1800000, 30 min; 0 never):
                   no request in flight and no stream open
  --max-sessions N Sessions each endpoint holds at most (default 10000). At the cap, on /mcp a
                   new one takes the place of the least recently used idle one; /sse answers 503
  --log-format F   Write an event per line to stderr: json or text (sessions opened and closed,
                   each request with its outcome and duration, refusals); default: errors only
  --children N     With CMD: start N processes of it, each request going to the least busy
                   (default 1). Several help a server that answers one request at a time; a
                   server that asks clients things (sampling, elicitation, roots) is best kept
                   at 1: its request reaches a client only when one client request is in flight
  --isolate        With CMD: give each 2025 session a process of its own, ended with the
                   session (DELETE or idle timeout), so that clients share none of its state
                   and its requests to clients always know their client; 2026 requests, which
                   have no session, go to the shared processes. Choose it for servers that keep
                   state per client (a client's roots, which a shared process would keep for all)
                   or ask clients things; the shared pool for stateless tools. With --redis or
                   --workers a session's process lives in one server process, which serves every
                   request of the session wherever it arrives
  --env NAME=VALUE With CMD: set a variable for it (repeatable); it inherits only PATH, HOME,
                   the locale and a few more from this process
  --cwd DIR        With CMD: the folder to start it in
  --hide-tool NAME With CMD: a tool of it clients never see (repeatable; * matches any run of
                   characters, as in delete_*): left out of the tool list, and a call of it
                   answered as one of a tool that does not exist (-32602)
  -h, --help       Show this help

Environment:
  NODE_OPTIONS='--import ./otel-setup.mjs'  Traces and metrics through the OpenTelemetry SDK that
                   module registers (docs/observability.md)
  MCPWIRE_REQUEST_STATE_SECRET  Seals the requestState of 2026 multi-round-trip requests (32 bytes
                   or more); every process behind one endpoint must share it. Several, separated
                   by commas, rotate it: the first seals, every one opens. Without it, --redis
                   (or --redis-cluster) shares keys through Redis and --workers draws one for
                   its workers.
  MCPWIRE_TASK_LEASE_MS  With --redis (or --redis-cluster), how soon the tasks of a process that died
                   are answered failed (default 10000): it renews its lease three times as often.

Examples:
  mcpwire serve --port 8080
  mcpwire serve ./server.js --workers 4 --redis redis://127.0.0.1:6379
  mcpwire serve --watch ./server.js
  mcpwire serve --port 8080 -- npx -y @modelcontextprotocol/server-everything stdio
  mcpwire serve --skills ./skills
  mcpwire serve --host 0.0.0.0 --allowed-host mcp.example.com
  mcpwire serve --stdio
  mcpwire serve --cors-origin https://app.example.com
  mcpwire serve --workers 4 --redis redis://127.0.0.1:6379
  mcpwire serve --redis-cluster 10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379
`;

export const CALL_HELP = `Usage: mcpwire call <url> <action> [args] [options]
       mcpwire call <action> [args] [options] -- <command> [args…]

Connects to an MCP server, runs one action and prints its result on stdout (logs, and a progress
bar on a terminal, on stderr). The server is a URL, or a command started over stdio: everything
after \`--\`.

Actions:
  tools                         Name, description and arguments of each tool
  call NAME [JSON]              Call a tool (JSON: its arguments, as one object). When the server
                                runs it as a task, its id is said on stderr first, and its status
                                (working, input required, ...) shown as it changes
  task ID                       Follow a task started earlier to its end and print its result, as
                                call would have
  resources, templates          List the resources, the resource templates
  read URI                      Read a resource
  prompts                       List the prompts
  prompt NAME [JSON]            Get a prompt (JSON: its arguments)
  complete prompt:NAME|URI_TEMPLATE ARG [VALUE] [JSON]
                                The server's suggestions for an argument (JSON: the arguments
                                already chosen)
  view TOOL [FILE]              The HTML of a tool's MCP Apps view (\`tools\` shows which have one),
                                printed or written to FILE
  skills                        Name, description and URI of each skill the server serves
  skill NAME|URI [FILE]         A skill's SKILL.md, or FILE of it (a path in its folder), checked
                                against the digest the server listed for it before it is printed
  ping                          Pong, with the protocol version and era
  listen [--tools] [--prompts] [--resources] [--resource URI]…
                                Print the server's notifications as they come, until Ctrl-C: the
                                lists that changed, and updates of each --resource URI; with no
                                flag, the changes of every list

Options:
  --transport T    auto (the default for a URL: Streamable HTTP, falling back to HTTP+SSE),
                   http, sse; stdio (the default with a command)
  --era E          auto (the default: the 2026 protocol where the server speaks it, else
                   the 2025 one), modern (2026 only), legacy (2025 and before only)
  --verbose, -v    Say on stderr which server answered, in which era and protocol version
  --header K:V     Send this header with every HTTP request (repeatable; \${NAME} in V is the
                   environment variable NAME)
  --roots PATH     Answer roots/list with this path as a file:// URI (repeatable:
                   --roots A --roots B)
  --sampling-reply TEXT
                   Answer sampling requests with TEXT (else ask on the terminal; without
                   one, refuse)
  --elicit-reply accept|decline|cancel|JSON
                   Answer elicitation requests so (JSON: the form's values, accepted); else
                   ask on the terminal (a URL is shown, never opened); without one, cancel
  --log-level L    Ask the server for log messages at level L and above (debug … emergency;
                   a 2026 server is asked for info and above unless told otherwise)
  --json           Print the raw result as JSON
  --timeout MS     Time allowed for each answer (progress resets it), and to connect to a URL;
                   over stdio a server silent before initialize is waited for twice
  --no-store       Keep no sign-in: the next run signs in again
  --client-id ID   Get OAuth tokens as this machine client (client credentials grant), with the
                   secret in the environment variable MCPWIRE_CLIENT_SECRET, or a private key (a
                   JWK with its alg) in MCPWIRE_CLIENT_KEY; or as a workload, the identity token
                   its platform writes in the file MCPWIRE_CLIENT_TOKEN_FILE names (JWT-bearer
                   grant, read again for each token); no one signs in
  --idp-issuer URL With --client-id and --idp-client-id ID: a person signed in at their
                   organisation's identity provider URL, where this client is ID; the ID token
                   it issued in the file MCPWIRE_ID_TOKEN_FILE names (read again for each
                   token; the client's secret there in MCPWIRE_IDP_CLIENT_SECRET) is traded
                   there for a grant, the grant for a token (enterprise-managed authorization)
  --no-task        Do not let the server run a call as a task (a tool that needs one then fails)
  -h, --help       Show this help

A server that wants an OAuth token gets a sign-in on the terminal: open the URL printed, and the
browser comes back to mcpwire on 127.0.0.1 (--header passes a token instead). The sign-in is kept
for the next runs, one file per server only you can read, in $XDG_CONFIG_HOME/mcpwire/oauth
(default ~/.config; %APPDATA%\\mcpwire\\oauth on Windows). The command inherits only PATH, HOME and
a few more variables of the environment: \`-- env KEY=VALUE command…\` passes more. Ctrl-C cancels
the action in flight (a task too: tasks/cancel). A task outlives a lost connection or a killed
mcpwire: \`task ID\` picks it up again, with the same server URL (and sign-in) that started it.

Exit status: 0 done, 1 the call or the server failed, 2 a usage mistake.

Examples:
  mcpwire call http://127.0.0.1:3000/mcp tools
  mcpwire call http://127.0.0.1:3000/mcp call add '{"a":1,"b":2}' --json
  mcpwire call http://127.0.0.1:3000/sse call echo '{"message":"hi"}'
  mcpwire call http://127.0.0.1:3000/mcp complete prompt:greet name A
  mcpwire call http://127.0.0.1:3000/mcp listen --tools --resource demo://readme
  mcpwire call -v --era legacy http://127.0.0.1:3000/mcp ping
  mcpwire call http://127.0.0.1:3000/mcp task 3f1c…
  mcpwire call prompts -- node dist/cli/main.js serve --stdio
`;

/** The help page of `command`, or undefined for a command there is none of. */
export function helpOf(command: string): string | undefined {
  if (command === 'serve') return SERVE_HELP;
  if (command === 'call') return CALL_HELP;
  if (command === 'connect') return CONNECT_HELP;
  return undefined;
}

export const CONNECT_HELP = `Usage: mcpwire connect [options] <url>

Serves the remote MCP server at <url> over this process's stdin and stdout, for MCP clients that
only start commands (desktop apps): nothing but protocol on stdout, everything else on stderr.
The local client speaks whichever era it speaks; the remote is reached in the era it speaks
(Streamable HTTP, or the legacy HTTP+SSE transport found by itself). What one asks of the other
is translated: the remote's sampling and elicitation reach the local client as requests (2025)
or input rounds (2026), and its list changes, updates and logs as notifications. A remote that
goes away is reached again, with a growing pause; calls in flight meanwhile get an error.

A remote that wants OAuth gets a sign-in: the URL to open in a browser is said on stderr, and
the browser comes back to a free port on 127.0.0.1. The sign-in is kept for the next runs.

Options:
  --header "Name: value"  Send this header with every request (repeatable); an Authorization
                          header skips the sign-in. \${NAME} in a value is the environment
                          variable NAME, so that a token stays out of the command line
  --transport T           auto (default), http (Streamable HTTP only) or sse (HTTP+SSE only)
  --no-store              Keep no sign-in: sign in again each run
  --client-id ID          Get OAuth tokens as this machine client (client credentials grant),
                          its secret in MCPWIRE_CLIENT_SECRET or its private key (a JWK with its
                          alg) in MCPWIRE_CLIENT_KEY; or as a workload, the identity token in
                          the file MCPWIRE_CLIENT_TOKEN_FILE names (JWT-bearer grant); no one
                          signs in
  --idp-issuer URL        With --client-id and --idp-client-id ID: a person signed in at their
                          organisation's identity provider URL, where this client is ID; the
                          ID token in the file MCPWIRE_ID_TOKEN_FILE names (read again for
                          each token; the secret there in MCPWIRE_IDP_CLIENT_SECRET) is traded
                          there for a grant, the grant for a token (enterprise-managed
                          authorization)
  --hide-tool NAME        A tool of the remote the local client never sees (repeatable; *
                          matches any run of characters): left out of the tool list, and a
                          call of it answered as one of a tool that does not exist (-32602)
  -h, --help              Show this help

A desktop app's configuration, and one for a server that takes a token it was given:
  { "mcpServers": { "remote": { "command": "npx", "args": ["-y", "mcpwire", "connect", "https://example.com/mcp"] } } }
  { "mcpServers": { "remote": { "command": "npx", "args": ["-y", "mcpwire", "connect", "https://example.com/mcp",
      "--header", "Authorization: Bearer \${TOKEN}"], "env": { "TOKEN": "…" } } } }
`;
