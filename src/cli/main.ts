#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { call } from './call.js';
import { parseCallArgs } from './call-args.js';
import { type ServeOAuth, serve } from './serve.js';
import { LOG_FORMATS, type LogFormat } from './stderr-logger.js';
import { UsageError } from './usage-error.js';
import { parseWorkers } from './workers.js';

const USAGE = `Usage: mcpwire <command> [options]

Commands:
  serve              Serve the demo MCP server over Streamable HTTP at http://127.0.0.1:3000/mcp,
                     with the legacy HTTP+SSE endpoints (/sse, /messages) beside it
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
    --redis URL      Share sessions and their streams through Redis (redis://host:port), so that
                     any process serving with the same URL can answer any request of any session
    --workers N      Serve from N processes sharing the port, restarted when one dies;
                     N > 1 needs --redis (shared sessions) unless --stateless
    --oauth-issuer URL --oauth-introspection URL
                     Take only OAuth access tokens of that authorization server, checked at its
                     introspection endpoint (RFC 7662) with the credentials in the environment
                     variables MCPWIRE_INTROSPECTION_CLIENT_ID and MCPWIRE_INTROSPECTION_CLIENT_SECRET
    --oauth-scope S  A scope every token must have (repeatable)
    --oauth-resource URL
                     The server's public URL, which tokens must be for (default: the bound one)
    --log-format F   Write an event per line to stderr: json or text (sessions opened and closed,
                     each request with its outcome and duration, refusals; default: errors only)

  call <url> <action> [args] [options]
                     Connect to an MCP server, run one action, print its result
  call <action> [args] [options] -- <command> [args…]
                     The same with a server started as a command, over stdio
    Actions: tools, call NAME [JSON], resources, read URI, templates, prompts,
             prompt NAME [JSON], complete prompt:NAME|URI_TEMPLATE ARG [VALUE] [JSON],
             ping, listen [--tools] [--prompts] [--resources] [--resource URI]…
             (JSON: the arguments, or those already chosen, as one object. listen prints
             the server's notifications as they come: the lists that changed, and updates
             of each --resource URI; with no flag, the changes of every list)
    --transport T    auto (the default for a URL: Streamable HTTP, falling back to HTTP+SSE),
                     http, sse; stdio (the default with a command)
    --era E          auto (the default: the 2026 protocol where the server speaks it, else
                     the 2025 one), modern (2026 only), legacy (2025 and before only)
    --verbose, -v    Say on stderr which server answered, in which era and protocol version
    --header K:V     Send this header with every HTTP request (repeatable)
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
    --timeout MS     Time allowed to connect, and for each answer (progress resets it)
    --no-store       Keep no sign-in: the next run signs in again
    A server that wants an OAuth token gets a sign-in on the terminal: open the URL printed,
    and the browser comes back to mcpwire on 127.0.0.1 (--header passes a token instead).
    The sign-in is kept for the next runs, one file per server only you can read, in
    $XDG_CONFIG_HOME/mcpwire/oauth (default ~/.config; %APPDATA%\\mcpwire\\oauth on Windows).
    The command inherits only PATH, HOME and a few more variables of the environment:
    \`-- env KEY=VALUE command…\` passes more. Exit status: 0 done, 1 the call or the
    server failed, 2 a usage mistake.

Options:
  -h, --help         Show this help
  -v, --version      Show the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The OAuth options of `mcpwire serve`, or undefined when none are given; UsageError when they are incomplete. */
function parseServeOAuth(
  values: {
    'oauth-issuer'?: string;
    'oauth-introspection'?: string;
    'oauth-scope': string[];
    'oauth-resource'?: string;
  },
  stdio: boolean | undefined,
): ServeOAuth | undefined {
  const issuer = values['oauth-issuer'];
  const introspection = values['oauth-introspection'];
  if (issuer === undefined && introspection === undefined) {
    if (values['oauth-scope'].length > 0 || values['oauth-resource'] !== undefined) {
      throw new UsageError(
        '--oauth-scope and --oauth-resource need --oauth-issuer and --oauth-introspection',
      );
    }
    return undefined;
  }
  if (stdio) throw new UsageError('--oauth-issuer protects HTTP endpoints; --stdio has none');
  if (issuer === undefined || introspection === undefined) {
    throw new UsageError(
      '--oauth-issuer and --oauth-introspection go together: whose tokens, and where to check them',
    );
  }
  for (const [flag, url] of [
    ['--oauth-issuer', issuer],
    ['--oauth-introspection', introspection],
    ['--oauth-resource', values['oauth-resource']],
  ] as const) {
    if (url !== undefined && !URL.canParse(url)) throw new UsageError(`${flag} takes a URL, not "${url}"`);
  }
  const clientId = process.env.MCPWIRE_INTROSPECTION_CLIENT_ID;
  const clientSecret = process.env.MCPWIRE_INTROSPECTION_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw new UsageError(
      "Introspection needs this server's credentials at the authorization server: set MCPWIRE_INTROSPECTION_CLIENT_ID " +
        'and MCPWIRE_INTROSPECTION_CLIENT_SECRET (kept out of the command line, where other users can read them)',
    );
  }
  return {
    issuer,
    introspection,
    clientId,
    clientSecret,
    resource: values['oauth-resource'],
    requiredScopes: values['oauth-scope'],
  };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === 'serve') {
    const { values } = parseArgs({
      args: rest,
      options: {
        port: { type: 'string', default: '3000' },
        host: { type: 'string', default: '127.0.0.1' },
        stateless: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'no-legacy-sse': { type: 'boolean', default: false },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        'allowed-origin': { type: 'string', multiple: true, default: [] },
        'cors-origin': { type: 'string', multiple: true, default: [] },
        stdio: { type: 'boolean', default: false },
        redis: { type: 'string' },
        workers: { type: 'string' },
        'oauth-issuer': { type: 'string' },
        'oauth-introspection': { type: 'string' },
        'oauth-scope': { type: 'string', multiple: true, default: [] },
        'oauth-resource': { type: 'string' },
        'log-format': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be an integer from 0 to 65535, not "${values.port}"`);
    }
    if (values.redis !== undefined && (values.stateless || values.stdio)) {
      throw new UsageError(
        `--redis shares sessions between processes; ${values.stdio ? '--stdio serves one client' : '--stateless has no sessions'}`,
      );
    }
    const logFormat = values['log-format'] as LogFormat | undefined;
    if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat)) {
      throw new UsageError(`--log-format is json or text, not "${logFormat}"`);
    }
    return serve({
      logFormat,
      oauth: parseServeOAuth(values, values.stdio),
      redis: values.redis,
      stdio: values.stdio,
      host: values.host,
      port,
      stateless: values.stateless,
      json: values.json,
      legacySse: !values['no-legacy-sse'],
      allowedHosts: values['allowed-host'],
      allowedOrigins: values['allowed-origin'],
      corsOrigins: values['cors-origin'],
      workers: parseWorkers(values.workers, {
        redis: values.redis,
        stateless: values.stateless,
        stdio: values.stdio,
      }),
    });
  }
  if (command === 'call') {
    const args = parseCallArgs(rest);
    if (args === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    return call(args, version());
  }
  throw new UsageError(`Unknown command "${command}"`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    // The message says what to change; the whole usage would bury it.
    process.stderr.write(`mcpwire: ${err.message}\n${usage ? 'Run `mcpwire --help` for the usage.\n' : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
