// The client fixture of the official MCP conformance suite (../shared/conformance/FIXTURE.md §2):
// our Client over the Streamable HTTP client transport, doing what each non-auth scenario asks.
//   usage: MCP_CONFORMANCE_SCENARIO=<scenario> npm run fixture:client -- <server-url>
// The conformance CLI appends the server URL, so it is the last argument. Exits 0 once the scenario's
// work is done and the session is closed, 1 when anything failed (the reason goes to stderr).

import { Client } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { StreamableHttpClientConnection } from '../../src/transport/streamable/client-transport.js';

/** Bounds every request well inside the CLI's 30 s per-scenario timeout, so a hang becomes an error. */
const REQUEST_TIMEOUT_MS = 15_000;

type Scenario = (session: ClientSession) => Promise<void>;

const SCENARIOS: Record<string, Scenario> = {
  // initialize and initialized are Client.connect's work; the mock declares no tools, so listing them
  // is only done where the server offers them (the client refuses to ask for an undeclared feature).
  initialize: async (session) => {
    if (session.serverCapabilities.tools !== undefined) await session.listTools();
  },
  tools_call: async (session) => {
    report(await expectSuccess(session.callTool('add_numbers', { a: 5, b: 3 })));
  },
  // The mock sends its elicitation/create on the standalone GET stream; the form handler below accepts
  // with nothing filled in, and the Client completes the content from the schema's defaults (SEP-1034).
  'elicitation-sep1034-client-defaults': async (session) => {
    report(await expectSuccess(session.callTool('test_client_elicitation_defaults')));
  },
  // The mock ends the call's SSE stream after a priming event (retry: 500); the transport resumes it
  // with GET + Last-Event-ID after exactly that wait, and the result arrives there.
  'sse-retry': async (session) => {
    report(await expectSuccess(session.callTool('test_reconnection')));
  },
};

const client = new Client(
  { name: 'mcpwire-conformance-client', version: '0.1.0' },
  {
    requestTimeout: REQUEST_TIMEOUT_MS,
    elicitation: {
      form: (params) => {
        log(`elicitation/create: ${params.message}; accepting with the schema's defaults`);
        return { action: 'accept', content: {} };
      },
    },
    onerror: (err) => log(`error: ${err.message}`),
  },
);

async function main(): Promise<number> {
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const scenario = SCENARIOS[name];
  if (scenario === undefined) {
    log(
      `unknown scenario ${JSON.stringify(name)} (MCP_CONFORMANCE_SCENARIO); ` +
        `this client runs ${Object.keys(SCENARIOS).join(', ')}`,
    );
    return 1;
  }
  const url = process.argv.at(-1);
  if (url === undefined || !URL.canParse(url)) {
    log(`usage: MCP_CONFORMANCE_SCENARIO=<scenario> client.ts <server-url> (got ${JSON.stringify(url)})`);
    return 1;
  }
  const session = await client.connect(new StreamableHttpClientConnection(url));
  log(`connected to ${session.serverInfo.name} (protocol ${session.protocolVersion})`);
  try {
    await scenario(session);
  } finally {
    await session.close();
  }
  return 0;
}

/** A tool result that is not an error, or a rejection that says what the tool said. */
async function expectSuccess(call: Promise<CallToolResult>): Promise<CallToolResult> {
  const result = await call;
  if (result.isError === true) throw new Error(`the tool failed: ${text(result)}`);
  return result;
}

function report(result: CallToolResult): void {
  process.stdout.write(`${text(result)}\n`);
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ');
}

function log(line: string): void {
  process.stderr.write(`conformance client: ${line}\n`);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
