// `mcpwire connect URL` (the built command) started over stdio as a desktop app starts a server: the official SDK v1
// client through it to a 2026-only official v2 server (its input round becomes an elicitation request the local
// client answers), mcpwire's client in both eras through it to `mcpwire serve`, nothing but protocol on stdout,
// server-everything over HTTP behind it (its sampling, elicitation and roots answered by the local official client),
// and the usage mistakes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client, connectStdio } from '../../src/client/index.js';
import { CLI, type CliRun, killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';
import { freePort } from '../../src/test-support/free-port.js';
import { type OfficialV2Server, startOfficialV2Server } from '../../src/test-support/official-v2-server.js';
import { shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { type RunningEverything, startEverything } from '../../src/test-support/server-everything.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 30_000;

describe('mcpwire connect → a 2026-only official v2 server', () => {
  let remote: OfficialV2Server;
  before(async () => {
    remote = await startOfficialV2Server({ legacy: 'reject' });
  });
  after(() => remote?.close());

  test('the official SDK v1 client (2025) calls its tools; the input round reaches it as an elicitation', async () => {
    const sdk = new SdkClient({ name: 'desktop', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    sdk.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Lovelace' } };
    });
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'connect', '--no-store', remote.url],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    await within(sdk.connect(transport), MS, 'connect');
    try {
      const { tools } = await sdk.listTools();
      assert.ok(
        tools.some((t) => t.name === 'ask_name'),
        tools.map((t) => t.name).join(', '),
      );
      const result = await sdk.callTool({ name: 'ask_name', arguments: {} });
      assert.deepEqual(asked, ['Your name?']);
      assert.deepEqual(result.content, [{ type: 'text', text: 'Hello Lovelace' }]);
      assert.match(stderr, /serving official-v2-fixture \(http:\/\/127\.0\.0\.1:\d+\/mcp\) on stdio/);
    } finally {
      await sdk.close();
    }
  });
});

describe('mcpwire connect → server-everything over Streamable HTTP', () => {
  let remote: RunningEverything;
  before(async () => {
    remote = await startEverything('streamableHttp');
  });
  after(() => remote?.stop());

  test("the official SDK v1 client over stdio: calls, and answers the remote's sampling, elicitation and roots", async () => {
    const sdk = new SdkClient(
      { name: 'desktop', version: '1' },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    const asked: string[] = [];
    sdk.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push('sampling');
      return shoutingModel(request.params);
    });
    sdk.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push('elicitation');
      return { action: 'accept', content: { name: 'Hopper', check: true, email: 'grace@example.com' } };
    });
    sdk.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work/desktop', name: 'desktop' }] };
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'connect', '--no-store', remote.url],
      stderr: 'pipe',
    });
    await within(sdk.connect(transport), MS, 'connect');
    try {
      const echo = await sdk.callTool({ name: 'echo', arguments: { message: 'through connect' } });
      assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: through connect' }]);
      const sampled = await sdk.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'What is 6 x 7?', maxTokens: 5 },
      });
      assert.match(JSON.stringify(sampled.content), /The model says: .*WHAT IS 6 X 7\?/);
      const elicited = await sdk.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.match(JSON.stringify(elicited.content), /Hopper/);
      const roots = await sdk.callTool({ name: 'get-roots-list', arguments: {} });
      assert.match(JSON.stringify(roots.content), /file:\/\/\/work\/desktop/);
      assert.deepEqual(asked, ['sampling', 'elicitation', 'roots']);
    } finally {
      await sdk.close();
    }
  });
  test('--hide-tool: the official client sees neither hidden tool, and a call of one is -32602 (server-everything)', async () => {
    const sdk = new SdkClient({ name: 'desktop', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'connect', '--no-store', '--hide-tool', 'trigger-*', '--hide-tool', 'echo', remote.url],
      stderr: 'pipe',
    });
    await within(sdk.connect(transport), MS, 'connect');
    try {
      const names = (await sdk.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('get-sum'), names.join(', '));
      assert.deepEqual(
        names.filter((name) => name === 'echo' || name.startsWith('trigger-')),
        [],
      );
      await assert.rejects(
        sdk.callTool({ name: 'echo', arguments: { message: 'hidden' } }),
        (err: unknown) =>
          (err as { code?: number }).code === -32602 && /Unknown tool: echo/.test(String(err)),
      );
      const sum = await sdk.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      assert.match(JSON.stringify(sum.content), /5/);
    } finally {
      await sdk.close();
    }
  });
});

describe('mcpwire connect → mcpwire serve', () => {
  let run: CliRun;
  let url: string;
  before(async () => {
    ({ run, url } = await serveDemo());
  });
  after(async () => {
    run?.child.kill('SIGINT');
    await run?.exit(10_000).catch(() => {});
    killCliRuns();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`mcpwire's client in the ${era} era: tools, a call with progress, an elicitation relayed`, async () => {
      const errors: Error[] = [];
      const client = new Client(
        { name: 'local', version: '1' },
        {
          era,
          onerror: (err) => errors.push(err),
          elicitation: { form: () => ({ action: 'accept', content: { name: 'Turing' } }) },
        },
      );
      const session = await within(
        connectStdio(client, { command: process.execPath, args: [CLI, 'connect', '--no-store', url] }),
        MS,
        'connect',
      );
      try {
        assert.equal(session.era, era);
        assert.equal(session.serverInfo.name, 'mcpwire-demo');
        const echo = await session.callTool('echo', { message: `via connect, ${era}` });
        assert.equal(toolText(echo), `Echo: via connect, ${era}`);
        const steps: number[] = [];
        await session.callTool(
          'long_running',
          { duration: 0.2, steps: 2 },
          { onprogress: (p) => steps.push(p.progress) },
        );
        assert.deepEqual(steps, [1, 2]);
        const named = await session.callTool('elicit_name');
        assert.match(toolText(named), /Turing/);
        // A line on stdout that is not protocol would have been reported here.
        assert.deepEqual(errors, []);
      } finally {
        await session.close();
      }
    });
  }
});

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: the remote killed and started again does not end the local session`, async () => {
    const port = await freePort();
    const start = () => runCli(['serve', '--port', String(port), '--no-legacy-sse']);
    const waitListening = async (run: CliRun) => {
      for (let i = 0; i < 200 && !/\/mcp/.test(run.stdout()); i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.match(run.stdout(), /\/mcp/, run.stderr());
    };
    let remote = start();
    remote.child.stdin.end();
    await waitListening(remote);
    const url = `http://127.0.0.1:${port}/mcp`;
    const client = new Client({ name: 'local', version: '1' }, { era, requestTimeoutMs: 5000 });
    const session = await within(
      connectStdio(client, { command: process.execPath, args: [CLI, 'connect', '--no-store', url] }),
      MS,
      'connect',
    );
    try {
      assert.equal(toolText(await session.callTool('echo', { message: 'before' })), 'Echo: before');
      remote.child.kill('SIGKILL');
      await remote.exit(10_000).catch(() => {});
      await assert.rejects(session.callTool('echo', { message: 'while down' }));
      assert.equal(session.isClosed, false, 'the local session lives on');
      remote = start();
      remote.child.stdin.end();
      await waitListening(remote);
      let text: string | undefined;
      for (let attempt = 0; attempt < 100 && text === undefined; attempt++) {
        try {
          text = toolText(await session.callTool('echo', { message: 'after' }));
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.equal(text, 'Echo: after');
    } finally {
      await session.close();
      remote.child.kill('SIGINT');
      await remote.exit(10_000).catch(() => {});
    }
  });
}

test('connect: usage mistakes', async () => {
  const none = runCli(['connect']);
  assert.equal(await none.exit(10_000), 2);
  assert.match(none.stderr(), /connect takes the URL of one MCP server/);
  const scheme = runCli(['connect', 'ftp://example.com/mcp']);
  assert.equal(await scheme.exit(10_000), 2);
  assert.match(scheme.stderr(), /http or https URL/);
  const header = runCli(['connect', '--header', 'nocolon', 'http://127.0.0.1:1/mcp']);
  assert.equal(await header.exit(10_000), 2);
  assert.match(header.stderr(), /--header takes "Name: value"/);
  const empty = runCli(['connect', '--hide-tool', '', 'http://127.0.0.1:1/mcp']);
  assert.equal(await empty.exit(10_000), 2);
  assert.match(empty.stderr(), /--hide-tool takes the name of a tool/);
});
