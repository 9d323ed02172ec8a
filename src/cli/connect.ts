import { parseArgs } from 'node:util';
import { bridgeServer } from '../host/bridge-server.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';
import { type CliSignIn, cliSignIn } from './call-oauth.js';
import { givesAuthorization, parseHeaders } from './header-args.js';
import { MACHINE_OPTIONS, type MachineClient, machineClient, machineSignIn } from './machine-client.js';
import { OAuthTokenFile, signInFolder } from './oauth-token-file.js';
import { checkedToolPatterns } from './serve-command.js';
import { UsageError } from './usage-error.js';

/** How long the remote server may take to answer its handshake, a sign-in in the browser included. */
const HANDSHAKE_MS = 6 * 60 * 1000;

/** What `mcpwire connect URL` is told. */
export interface ConnectArgs {
  url: URL;
  transport: 'auto' | 'http' | 'sse';
  headers: Record<string, string>;
  /** Keep an OAuth sign-in for the next runs (false with `--no-store`). */
  store: boolean;
  /** The remote's tools the local client never sees (`--hide-tool`, see HiddenTools). */
  hideTools: readonly string[];
  /** `--client-id`: get tokens as this machine client, no sign-in. */
  machine: MachineClient | undefined;
}

/** `mcpwire connect`'s arguments, or 'help'; UsageError when they are wrong. */
export function parseConnectArgs(argv: readonly string[]): ConnectArgs | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      transport: { type: 'string', default: 'auto' },
      header: { type: 'string', multiple: true, default: [] },
      'no-store': { type: 'boolean', default: false },
      'hide-tool': { type: 'string', multiple: true, default: [] },
      ...MACHINE_OPTIONS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (positionals.length !== 1 || !URL.canParse(positionals[0]!)) {
    throw new UsageError('connect takes the URL of one MCP server: mcpwire connect https://example.com/mcp');
  }
  const url = new URL(positionals[0]!);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`connect takes an http or https URL, not ${url.protocol}`);
  }
  const transport = values.transport as ConnectArgs['transport'];
  if (!['auto', 'http', 'sse'].includes(transport)) {
    throw new UsageError(`--transport must be one of auto, http, sse, not "${values.transport}"`);
  }
  const headers = parseHeaders(values.header);
  return {
    url,
    transport,
    headers,
    store: !values['no-store'],
    hideTools: checkedToolPatterns(values['hide-tool']),
    machine: machineClient(values, { kind: 'url' }, headers),
  };
}

/**
 * `mcpwire connect URL`: a stdio MCP server (for clients that only start commands) that serves the remote server
 * at URL, in the era the local client speaks, reaching the remote in the era it speaks (see bridgeServer): nothing
 * but protocol on stdout, everything else on stderr. A remote that wants OAuth gets a sign-in in the browser (the
 * URL said on stderr, the answer taken on a free loopback port), kept for the next runs unless `--no-store`.
 * Resolves with the exit code once the local client has gone.
 */
export async function connect(args: ConnectArgs, clientVersion: string): Promise<number> {
  const say = (text: string) => process.stderr.write(text);
  let signIn: CliSignIn | undefined;
  if (args.machine !== undefined) signIn = machineSignIn(args.machine);
  else if (!givesAuthorization(args.headers)) {
    const saved = args.store ? new OAuthTokenFile(args.url, signInFolder(), say) : undefined;
    signIn = await cliSignIn(clientVersion, true, say, saved);
  }
  const remote = {
    url: args.url.href,
    transport: args.transport,
    headers: args.headers,
    fetch: signIn?.oauth.fetch,
  };
  let bridge: Awaited<ReturnType<typeof bridgeServer>>;
  try {
    bridge = await bridgeServer({
      upstream: { remote },
      hideTools: args.hideTools,
      handshakeTimeoutMs: HANDSHAKE_MS,
      report: (message) => say(`mcpwire: ${message}\n`),
    });
  } catch (err) {
    await signIn?.close();
    throw new Error(`Could not connect to ${args.url.href}: ${(err as Error).message}`, { cause: err });
  }
  const service = serveStdio(bridge.server, { onerror: (err) => say(`mcpwire: ${err.message}\n`) });
  say(`mcpwire: serving ${bridge.server.info.name} (${args.url.href}) on stdio\n`);
  return new Promise((resolve) => {
    let ending = false;
    const end = () => {
      if (ending) return;
      ending = true;
      Promise.all([service.close(), bridge.close(), signIn?.close()]).finally(() => resolve(0));
    };
    service.ended.then(end);
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
  });
}
