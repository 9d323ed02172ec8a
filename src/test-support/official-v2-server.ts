// A 2026-07-28 interop peer that mcpwire did not write: servers built from the official TypeScript SDK v2,
// `@modelcontextprotocol/server` 2.4.0 with `@modelcontextprotocol/node` 2.1.2 (exact devDependencies), for
// mcpwire's client tests. `buildOfficialV2Server` registers the surface once; `startOfficialV2Server` serves
// it over HTTP (`createMcpHandler` + `toNodeHandler`), and `official-v2-stdio.ts` over stdio (`serveStdio`).
// The SDK's own code is used as a dependency, never copied.
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { serveOn } from './mcp-http.js';

/** The identity the fixture reports in every result's `_meta` serverInfo. */
export const OFFICIAL_V2_INFO = { name: 'official-v2-fixture', version: '2.4.0' } as const;

/** Fixed so that every per-request instance (and a test that mints its own) verifies the same states. */
export const OFFICIAL_V2_STATE_KEY = new Uint8Array(32).fill(7);

export const README_URI = 'demo://readme';
export const README_TEXT = 'The demo readme.';

/** The `requestState` payload of `two_rounds`: the round it asked for, and what round 1 answered. */
type RoundState = { round: 1 } | { round: 2; first: string };

const codec = createRequestStateCodec<RoundState | { tool: string }>({ key: OFFICIAL_V2_STATE_KEY });

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The SDK's JsonSchemaType has no room for extension keywords, so the annotated property is a separate
 * constant (TypeScript checks excess properties on inline literals only).
 */
const REGION_PROPERTY = { type: 'string', 'x-mcp-header': 'Region' } as const;

/** A form elicitation asking for one string field, the shape `ask_name` and `two_rounds` request. */
const askFor = (field: string, message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
  });

/**
 * One McpServer with the whole fixture surface. The SDK calls its factory per HTTP request (and once per
 * stdio connection), so `changes` is how the `notify_changes` tool reaches the serving entry's listen streams.
 */
export function buildOfficialV2Server(changes: (server: McpServer) => ServerNotifier): McpServer {
  const server = new McpServer(OFFICIAL_V2_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    },
    requestState: { verify: codec.verify },
  });

  server.registerTool(
    'echo',
    { description: 'Answers with `message`.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => text(message),
  );

  // A raw JSON Schema needs fromJsonSchema(); the HTTP entry then requires `Mcp-Param-Region` to mirror
  // `arguments.region` (400 -32020 otherwise).
  server.registerTool(
    'echo_region',
    {
      description: 'Answers with `region`, which is mirrored in the Mcp-Param-Region header.',
      inputSchema: fromJsonSchema<{ region: string }>({
        type: 'object',
        properties: { region: REGION_PROPERTY },
        required: ['region'],
      }),
    },
    async ({ region }) => text(region),
  );

  server.registerTool('ask_name', { description: 'Elicits a name (form), then greets it.' }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
    if (answer.kind === 'elicit' && answer.action !== 'accept') {
      return { ...text(`ask_name: ${answer.action}`), isError: true };
    }
    const got = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, 'name');
    if (got === undefined) {
      return inputRequired({
        inputRequests: { name: askFor('name', 'Your name?') },
        requestState: await codec.mint({ tool: 'ask_name' }),
      });
    }
    return text(`Hello ${got.name}`);
  });

  server.registerTool(
    'sample',
    {
      description: 'Asks the client to sample `prompt`; answers with the CreateMessageResult as JSON.',
      inputSchema: z.object({ prompt: z.string() }),
    },
    async ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'reply');
      if (answer.kind === 'sampling') return text(JSON.stringify(answer.result));
      return inputRequired({
        inputRequests: {
          reply: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: 64,
          }),
        },
      });
    },
  );

  server.registerTool(
    'list_roots',
    { description: "Asks for the client's roots; answers with the ListRootsResult as JSON." },
    async (ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (answer.kind === 'roots') return text(JSON.stringify({ roots: answer.roots }));
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    },
  );

  // Two input_required rounds whose state evolves: {round:1}, then {round:2, first}. The codec has verified
  // (HMAC, TTL) any state that reaches the handler; a round whose answer is missing is asked again.
  server.registerTool(
    'two_rounds',
    {
      description: 'Elicits `first` (key step1), then `second` (key step2); answers "<first> then <second>".',
    },
    async (ctx) => {
      const state = ctx.mcpReq.requestState<RoundState>();
      const responses = ctx.mcpReq.inputResponses;
      const step2 = async (first: string) =>
        inputRequired({
          inputRequests: { step2: askFor('second', 'Second word?') },
          requestState: await codec.mint({ round: 2, first }),
        });
      if (state?.round === 2) {
        const got = acceptedContent<{ second: string }>(responses, 'step2');
        return got === undefined ? step2(state.first) : text(`${state.first} then ${got.second}`);
      }
      const got = state?.round === 1 ? acceptedContent<{ first: string }>(responses, 'step1') : undefined;
      if (got !== undefined) return step2(got.first);
      return inputRequired({
        inputRequests: { step1: askFor('first', 'First word?') },
        requestState: await codec.mint({ round: 1 }),
      });
    },
  );

  server.registerTool(
    'peek',
    { description: 'Changes nothing; answers "peeked".', annotations: { readOnlyHint: true } },
    async () => text('peeked'),
  );

  server.registerTool(
    'notify_changes',
    { description: 'Publishes every change notification (tools, prompts, resources, demo://readme).' },
    async () => {
      const notifier = changes(server);
      notifier.toolsChanged();
      notifier.promptsChanged();
      notifier.resourcesChanged();
      notifier.resourceUpdated(README_URI);
      return text('notified');
    },
  );

  server.registerPrompt(
    'greet',
    { description: 'Greets `name`.', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
  );

  server.registerResource('readme', README_URI, { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: README_TEXT }],
  }));

  return server;
}

/** The notifier of a stdio instance: its own change notifications, which `serveStdio` routes to listens. */
export function instanceNotifier(server: McpServer): ServerNotifier {
  return {
    toolsChanged: () => server.sendToolListChanged(),
    promptsChanged: () => server.sendPromptListChanged(),
    resourcesChanged: () => server.sendResourceListChanged(),
    resourceUpdated: (uri) => void server.server.sendResourceUpdated({ uri }),
  };
}

export interface OfficialV2Server {
  /** The endpoint, `http://127.0.0.1:<port>/mcp` (the handler answers on any path). */
  url: string;
  /** Publishes onto the handler's bus: reaches the open `subscriptions/listen` streams that opted in. */
  notify: ServerNotifier;
  /** Ends the listen streams (each gets its graceful result), then closes every connection and the server. */
  close(): Promise<void>;
}

/**
 * Serves the fixture over HTTP on 127.0.0.1, port 0. `legacy: 'reject'` is a strict modern-only peer
 * (2025 requests get 400 -32022 with `supported`); `'stateless'` also answers 2025 requests, one fresh
 * instance per request (so no server→client requests, and GET/DELETE get 405).
 */
export async function startOfficialV2Server(options: {
  legacy: 'reject' | 'stateless';
  /** SSE `: keepalive` comment interval on listen (and upgraded) streams; the SDK's default is 15000. */
  keepAliveMs?: number;
}): Promise<OfficialV2Server> {
  const handler = createMcpHandler(() => buildOfficialV2Server(() => handler.notify), {
    legacy: options.legacy,
    keepAliveMs: options.keepAliveMs,
  });
  const served = await serveOn(toNodeHandler(handler));
  return {
    url: served.url,
    notify: handler.notify,
    close: async () => {
      await handler.close();
      await served.close();
    },
  };
}

/**
 * How to spawn the stdio variant (`official-v2-stdio.ts` under tsx, resolved from this package so any cwd
 * works); `rejectLegacy` makes it modern-only.
 */
export function officialV2StdioCommand(options: { rejectLegacy?: boolean } = {}): {
  command: string;
  args: string[];
} {
  const script = fileURLToPath(new URL('./official-v2-stdio.ts', import.meta.url));
  const args = ['--import', import.meta.resolve('tsx'), script];
  if (options.rejectLegacy === true) args.push('--reject-legacy');
  return { command: process.execPath, args };
}
