// The fixture's own check: the official-SDK 2026-07-28 peers of src/test-support/official-v2-server.ts,
// driven with raw fetch and raw stdio lines (mcpwire's client is not involved), on what mcpwire's client
// tests will rely on. Official versions: @modelcontextprotocol/server 2.4.0 (with @modelcontextprotocol/core
// 2.4.0) and @modelcontextprotocol/node 2.1.2 (over @hono/node-server 2.1.9, hono 4.13.19); zod 4.6.7.
// All declare engines node >=20, so this runs on Node 20 and 22 alike.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { initializeRequest, jsonBody, post, SSEReader } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import {
  type OfficialV2Server,
  officialV2StdioCommand,
  README_TEXT,
  README_URI,
  startOfficialV2Server,
} from '../../src/test-support/official-v2-server.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ELICIT = { elicitation: {} };

/** A modern tools/call, its JSON-RPC body (every one here is answered with JSON, not SSE). */
async function callTool(url: string, id: number, params: Record<string, unknown>, options = {}) {
  const res = await postModern(url, id, 'tools/call', { arguments: {}, ...params }, options);
  return { status: res.status, body: await jsonBody(res) };
}

describe('official v2 fixture over HTTP, legacy: reject', () => {
  let server: OfficialV2Server;
  before(async () => {
    server = await startOfficialV2Server({ legacy: 'reject' });
  });
  after(() => server.close());

  test('server/discover names 2026-07-28, the listChanged and subscribe capabilities, and serverInfo', async () => {
    const res = await postModern(server.url, 1, 'server/discover');
    assert.equal(res.status, 200);
    const { result } = await jsonBody(res);
    assert.deepEqual(result.supportedVersions, ['2026-07-28']);
    assert.deepEqual(result.capabilities, {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result._meta['io.modelcontextprotocol/serverInfo'], {
      name: 'official-v2-fixture',
      version: '2.4.0',
    });
  });

  test('tools/list carries the x-mcp-header annotation and readOnlyHint as registered', async () => {
    const { result } = await jsonBody(await postModern(server.url, 2, 'tools/list'));
    const tools = new Map<string, any>(result.tools.map((t: any) => [t.name, t]));
    assert.deepEqual(
      [...tools.keys()],
      ['echo', 'echo_region', 'ask_name', 'sample', 'list_roots', 'two_rounds', 'peek', 'notify_changes'],
    );
    assert.equal(tools.get('echo_region').inputSchema.properties.region['x-mcp-header'], 'Region');
    assert.deepEqual(tools.get('peek').annotations, { readOnlyHint: true });
  });

  test('echo, and echo_region with its Mcp-Param-Region header; without it: 400 -32020', async () => {
    assert.equal(
      toolText((await callTool(server.url, 3, { name: 'echo', arguments: { message: 'hi' } })).body.result),
      'hi',
    );
    const region = { name: 'echo_region', arguments: { region: 'eu-west' } };
    const mirrored = await callTool(server.url, 4, region, { headers: { 'mcp-param-region': 'eu-west' } });
    assert.equal(toolText(mirrored.body.result), 'eu-west');
    const missing = await callTool(server.url, 5, region);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.id, 5);
    assert.equal(missing.body.error.code, -32020);
    assert.equal(missing.body.error.data.mismatch.header, 'Mcp-Param-Region');
  });

  test('ask_name: input_required with a form elicitation, then Hello <name> on the retry', async () => {
    const first = await callTool(server.url, 6, { name: 'ask_name' }, { capabilities: ELICIT });
    assert.equal(first.status, 200);
    const { result } = first.body;
    assert.equal(result.resultType, 'input_required');
    assert.equal(result.inputRequests.name.method, 'elicitation/create');
    assert.equal(result.inputRequests.name.params.mode, 'form');
    assert.match(result.requestState, /^v1\./);
    const retry = {
      name: 'ask_name',
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: result.requestState,
    };
    const done = await callTool(server.url, 7, retry, { capabilities: ELICIT });
    assert.equal(done.body.result.resultType, 'complete');
    assert.equal(toolText(done.body.result), 'Hello Ada');

    // A requestState whose MAC fails: an in-band (HTTP 200) -32602 with a frozen message.
    const tampered = { ...retry, requestState: `${result.requestState.slice(0, -4)}AAAA` };
    const refused = await callTool(server.url, 8, tampered, { capabilities: ELICIT });
    assert.equal(refused.status, 200);
    assert.deepEqual(refused.body.error, {
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'invalid_request_state' },
    });
  });

  test('ask_name without the elicitation capability in _meta: 400 -32021 naming it', async () => {
    const { status, body } = await callTool(server.url, 9, { name: 'ask_name' });
    assert.equal(status, 400);
    assert.equal(body.error.code, -32021);
    assert.deepEqual(body.error.data.requiredCapabilities, { elicitation: { form: {} } });
  });

  test('sample and list_roots answer with what the client returned', async () => {
    const asked = await callTool(
      server.url,
      10,
      { name: 'sample', arguments: { prompt: 'hi' } },
      { capabilities: { sampling: {} } },
    );
    assert.equal(asked.body.result.inputRequests.reply.method, 'sampling/createMessage');
    const reply = { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'test-model' };
    const sampled = await callTool(
      server.url,
      11,
      { name: 'sample', arguments: { prompt: 'hi' }, inputResponses: { reply } },
      { capabilities: { sampling: {} } },
    );
    assert.deepEqual(JSON.parse(toolText(sampled.body.result)), reply);

    const roots = await callTool(server.url, 12, { name: 'list_roots' }, { capabilities: { roots: {} } });
    assert.deepEqual(roots.body.result.inputRequests, { roots: { method: 'roots/list' } });
    const listed = { roots: [{ uri: 'file:///work', name: 'work' }] };
    const answered = await callTool(
      server.url,
      13,
      { name: 'list_roots', inputResponses: { roots: listed } },
      { capabilities: { roots: {} } },
    );
    assert.deepEqual(JSON.parse(toolText(answered.body.result)), listed);
  });

  test('two_rounds: two input_required rounds with evolving requestState, then the answer', async () => {
    const round1 = (await callTool(server.url, 14, { name: 'two_rounds' }, { capabilities: ELICIT })).body
      .result;
    assert.deepEqual(Object.keys(round1.inputRequests), ['step1']);
    const round2 = (
      await callTool(
        server.url,
        15,
        {
          name: 'two_rounds',
          inputResponses: { step1: { action: 'accept', content: { first: 'left' } } },
          requestState: round1.requestState,
        },
        { capabilities: ELICIT },
      )
    ).body.result;
    assert.deepEqual(Object.keys(round2.inputRequests), ['step2']);
    assert.notEqual(round2.requestState, round1.requestState);
    const done = await callTool(
      server.url,
      16,
      {
        name: 'two_rounds',
        inputResponses: { step2: { action: 'accept', content: { second: 'right' } } },
        requestState: round2.requestState,
      },
      { capabilities: ELICIT },
    );
    assert.equal(toolText(done.body.result), 'left then right');
  });

  test('the greet prompt and the demo://readme resource', async () => {
    const prompt = await jsonBody(
      await postModern(server.url, 17, 'prompts/get', { name: 'greet', arguments: { name: 'Ada' } }),
    );
    assert.equal(prompt.result.messages[0].content.text, 'Hello, Ada!');
    const read = await jsonBody(await postModern(server.url, 18, 'resources/read', { uri: README_URI }));
    assert.equal(read.result.contents[0].text, README_TEXT);
  });

  test('a 2025 initialize: 400 -32022 with supported', async () => {
    const res = await post(server.url, initializeRequest(0));
    assert.equal(res.status, 400);
    const body = await jsonBody(res);
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data, { supported: ['2026-07-28'], requested: '2025-11-25' });
  });

  test('subscriptions/listen: the ack first, then only the requested notifications, tagged', async () => {
    const aborter = new AbortController();
    const res = await postModern(
      server.url,
      'listen-1',
      'subscriptions/listen',
      { notifications: { toolsListChanged: true, resourceSubscriptions: [README_URI] } },
      { signal: aborter.signal },
    );
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const stream = new SSEReader(res);
    const next = async () => (await within(stream.nextMessage(), 5000, 'a listen message'))?.message;
    try {
      const ack = await next();
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications, {
        toolsListChanged: true,
        resourceSubscriptions: [README_URI],
      });
      assert.equal(ack.params._meta[SUBSCRIPTION_ID], 'listen-1');

      server.notify.promptsChanged(); // not requested: never delivered
      server.notify.toolsChanged();
      const changed = await next();
      assert.equal(changed.method, 'notifications/tools/list_changed');
      assert.equal(changed.params._meta[SUBSCRIPTION_ID], 'listen-1');

      server.notify.resourceUpdated('demo://other');
      server.notify.resourceUpdated(README_URI);
      const updated = await next();
      assert.equal(updated.method, 'notifications/resources/updated');
      assert.equal(updated.params.uri, README_URI);

      // The notify_changes tool publishes on the same bus from inside a request.
      assert.equal(
        toolText((await callTool(server.url, 19, { name: 'notify_changes' })).body.result),
        'notified',
      );
      assert.deepEqual(
        [(await next()).method, (await next()).method],
        ['notifications/tools/list_changed', 'notifications/resources/updated'],
      );
    } finally {
      aborter.abort();
      await stream.cancel();
    }
  });
});

test('a listen stream: keepalive comments, and close() ends it with the graceful result', async () => {
  const server = await startOfficialV2Server({ legacy: 'reject', keepAliveMs: 50 });
  try {
    const res = await postModern(server.url, 7, 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    const reader = res.body!.getReader();
    let text = '';
    const readUntil = async (done: () => boolean, label: string) => {
      while (!done()) {
        const chunk = await within(reader.read(), 5000, label);
        if (chunk.done) return;
        text += new TextDecoder().decode(chunk.value);
      }
    };
    await readUntil(() => text.includes(': keepalive\n\n'), 'a keepalive comment');
    const closing = server.close();
    await readUntil(() => false, 'the end of the stream');
    await closing;
    const last = JSON.parse(
      text
        .trim()
        .split('\n')
        .at(-1)!
        .replace(/^data: /, ''),
    );
    assert.deepEqual(last, {
      jsonrpc: '2.0',
      id: 7,
      result: {
        resultType: 'complete',
        _meta: {
          [SUBSCRIPTION_ID]: 7,
          'io.modelcontextprotocol/serverInfo': { name: 'official-v2-fixture', version: '2.4.0' },
        },
      },
    });
  } finally {
    await server.close();
  }
});

test('legacy: stateless answers a 2025 initialize (over SSE, no session) and 2025 tools/call', async () => {
  const server = await startOfficialV2Server({ legacy: 'stateless' });
  try {
    const init = await post(server.url, initializeRequest(0));
    assert.equal(init.status, 200);
    assert.equal(init.headers.get('mcp-session-id'), null);
    assert.match(await init.text(), /"protocolVersion":"2025-11-25"/);
    const echo = await post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'old' } },
      },
      { headers: { 'mcp-protocol-version': '2025-11-25' } },
    );
    assert.match(await echo.text(), /"text":"old"/);
    const discover = await jsonBody(await postModern(server.url, 2, 'server/discover'));
    assert.deepEqual(discover.result.supportedVersions, ['2026-07-28']);
  } finally {
    await server.close();
  }
});

describe('official v2 fixture over stdio (serveStdio)', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const children: ChildProcessWithoutNullStreams[] = [];
  after(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  /** Spawns the script; `messages()` parses the lines it printed so far. */
  function spawnStdio(rejectLegacy = false) {
    const { command, args } = officialV2StdioCommand({ rejectLegacy });
    const child = spawn(command, args, { stdio: 'pipe' });
    children.push(child);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const messages = (): any[] =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
    return { child, exited, send, messages };
  }

  test('answers server/discover; listen gets the ack and notify_changes reaches it; exits on EOF', async () => {
    const { child, exited, send, messages } = spawnStdio();
    const byId = (id: unknown) => messages().find((m) => m.id === id);
    const tagged = () => messages().filter((m) => m.params?._meta?.[SUBSCRIPTION_ID] === 'L');

    send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    await until(() => byId(1) !== undefined, 15_000, 'the discover result');
    assert.deepEqual(byId(1).result.supportedVersions, ['2026-07-28']);

    const notifications = { toolsListChanged: true, resourceSubscriptions: [README_URI] };
    send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications, _meta: meta } });
    await until(() => tagged().length === 1, 5000, 'the listen ack');
    assert.equal(tagged()[0].method, 'notifications/subscriptions/acknowledged');

    const call = { name: 'notify_changes', arguments: {}, _meta: meta };
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call });
    await until(
      () => byId(2) !== undefined && tagged().length === 3,
      5000,
      'the tool result and two changes',
    );
    assert.deepEqual(
      tagged().map((m) => m.method),
      [
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
        'notifications/resources/updated',
      ],
    );
    child.stdin.end();
    assert.equal(await within(exited, 5000, 'the script to exit'), 0);
  });

  test('--reject-legacy answers a 2025 initialize with -32022 and supported', async () => {
    const { child, exited, send, messages } = spawnStdio(true);
    send(initializeRequest(0));
    await until(() => messages().length === 1, 15_000, 'the initialize answer');
    assert.equal(messages()[0].error.code, -32022);
    assert.deepEqual(messages()[0].error.data.supported, ['2026-07-28']);
    child.stdin.end();
    await within(exited, 5000, 'the script to exit');
  });
});
