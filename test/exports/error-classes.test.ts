// The error classes are exported where their users import from: the package's subpaths as a user imports them
// (resolved through package.json "exports" to the build), each the very class the root exports, so that
// `instanceof` holds whichever entry point a caller used; and a real client's failures are instances of the
// classes `mcpwire/client` exports.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

type Module = Record<string, unknown>;
/** A subpath of this package, imported by name as a user does (`npm run build` made what it resolves to). */
const load = (subpath: string): Promise<Module> => import(subpath === '' ? 'mcpwire' : `mcpwire/${subpath}`);

const SESSION_ERRORS = [
  'RequestTimeoutError',
  'ConnectionClosedError',
  'InvalidResponseError',
  'RequestCancelledError',
  'CapabilityError',
];

const EXPECTED: Record<string, string[]> = {
  client: [
    'McpError',
    'ErrorCode',
    ...SESSION_ERRORS,
    'SessionExpiredError',
    'ResponseLostError',
    'InvalidServerResultError',
  ],
  server: [
    'McpError',
    'ErrorCode',
    ...SESSION_ERRORS,
    'InputRequired',
    'RoundEndedError',
    'InvalidClientAnswerError',
  ],
};
// The transports' own: a client's connections fail with these, a server's report them to onerror.
EXPECTED.client.push(
  'StreamableHTTPError',
  'SessionLostError',
  'SSEClientError',
  'OAuthError',
  'StdioProcessError',
);
EXPECTED.server.push(
  'HTTPRejectionError',
  'StreamUnavailableError',
  'RenumberedEventError',
  'StoreUnavailableError',
  'EventsPurgedError',
  'UnknownStreamError',
  'UnknownEventError',
  'StreamClosedError',
  'TaskLimitError',
  'TaskStoreFullError',
);
EXPECTED.browser = EXPECTED.client.filter((name) => name !== 'StdioProcessError');

describe('error classes by subpath', () => {
  for (const [subpath, names] of Object.entries(EXPECTED)) {
    test(`mcpwire/${subpath} exports ${names.join(', ')}, the root's own`, async () => {
      const [module, root] = await Promise.all([load(subpath), load('')]);
      for (const name of names) {
        assert.equal(typeof module[name], name === 'ErrorCode' ? 'object' : 'function', `${name} is missing`);
        assert.equal(module[name], root[name], `${name} is another class than the root's`);
      }
    });
  }

  test("a client's timeout and a missing capability reject with mcpwire/client's classes", async () => {
    const { Client, McpError, RequestTimeoutError, CapabilityError } = (await load('client')) as {
      Client: new (info: object) => { connect(c: unknown): Promise<Session> };
      McpError: ErrorClass;
      RequestTimeoutError: ErrorClass;
      CapabilityError: ErrorClass;
    };
    const { Server } = (await load('server')) as { Server: new (info: object) => ServerLike };
    const { createMemoryPair } = (await load('client')) as { createMemoryPair(): [unknown, unknown] };
    const server = new Server({ name: 'slow', version: '1' });
    server.tool({ name: 'never', inputSchema: { type: 'object' } }, () => new Promise(() => {}));
    const [clientEnd, serverEnd] = createMemoryPair();
    server.connect(serverEnd);
    const session = await new Client({ name: 'c', version: '1' }).connect(clientEnd);
    // Request timers hold no process open, and a memory pair has no socket that would.
    const alive = setInterval(() => {}, 1000);
    try {
      const late = await session.callTool('never', {}, { timeoutMs: 50 }).catch((err: unknown) => err);
      assert.ok(late instanceof RequestTimeoutError, String(late));
      assert.ok(late instanceof McpError);
      // The server offers no prompts: the client refuses to ask, sending nothing.
      const refused = await session.listPrompts().catch((err: unknown) => err);
      assert.ok(refused instanceof CapabilityError, String(refused));
    } finally {
      clearInterval(alive);
      await session.close();
    }
  });
});

type ErrorClass = abstract new (...args: never[]) => Error;
interface Session {
  callTool(name: string, args: object, options: { timeoutMs: number }): Promise<unknown>;
  listPrompts(): Promise<unknown>;
  close(): Promise<void>;
}
interface ServerLike {
  tool(def: object, handler: () => Promise<unknown>): void;
  connect(connection: unknown): void;
}
