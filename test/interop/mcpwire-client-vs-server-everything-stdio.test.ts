// Our Client against @modelcontextprotocol/server-everything (the official reference server, built
// on the official SDK) spawned over stdio: every feature it exercises, answered by our handlers.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  type ClientSession,
  type StdioClientConnection,
  spawnStdio,
} from '../../src/client/index.js';
import type { Progress } from '../../src/peer/peer-options.js';
import type {
  ElicitRequestFormParams,
  LoggingMessageNotificationParams,
  ResourceUpdatedNotificationParams,
} from '../../src/protocol/types.js';
import { everythingClientOptions } from '../../src/test-support/everything-client-options.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

/** Resolves with the first event `subscribe` delivers that `match` accepts; rejects after `ms`. */
function nextEvent<T>(
  subscribe: (listener: (value: T) => void) => () => void,
  match: (value: T) => boolean,
  ms: number,
  label: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`Timed out after ${ms} ms waiting for ${label}`));
    }, ms);
    const off = subscribe((value) => {
      if (!match(value)) return;
      clearTimeout(timer);
      off();
      resolve(value);
    });
  });
}

/** How long close waits for the child to exit on end of stdin before SIGTERM: a loaded machine may take seconds. */
const CLOSE_GRACE_MS = 20_000;

describe('mcpwire Client ↔ server-everything (stdio)', () => {
  let session: ClientSession;
  let connection: StdioClientConnection;
  let stderr = '';
  const { options, errors, samplingRequests } = everythingClientOptions('Sampled by mcpwire: forty-two');
  const elicitRequests: ElicitRequestFormParams[] = [];

  before(async () => {
    assert.ok(
      existsSync(EVERYTHING),
      `${EVERYTHING} is missing: is @modelcontextprotocol/server-everything installed?`,
    );
    const client = new Client(
      { name: 'mcpwire-interop', version: '0.1.0' },
      {
        ...options,
        elicitation: {
          form: (params) => {
            elicitRequests.push(params);
            return {
              action: 'accept',
              content: { name: 'Grace Hopper', check: true, email: 'grace@example.com' },
            };
          },
        },
      },
    );
    connection = spawnStdio({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      closeGraceMs: CLOSE_GRACE_MS,
      onStderr: (chunk) => {
        stderr += chunk;
      },
    });
    session = await client.connect(connection, { timeoutMs: 10_000 });
  });

  after(async () => {
    await session?.close();
  });

  test('initialize: server info, capabilities, instructions, version', () => {
    assert.deepEqual(session.serverInfo, {
      name: 'mcp-servers/everything',
      title: 'Everything Reference Server',
      version: '2.0.0',
    });
    assert.equal(session.protocolVersion, '2025-11-25');
    const caps = session.serverCapabilities;
    assert.deepEqual(caps.tools, { listChanged: true });
    assert.deepEqual(caps.prompts, { listChanged: true });
    assert.deepEqual(caps.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(caps.logging, {});
    assert.ok((session.instructions ?? '').length > 0);
    assert.match(stderr, /Starting default \(STDIO\) server/);
  });

  test('tools(): the iterator yields the tools, including those registered for our capabilities', async () => {
    const names: string[] = [];
    for await (const tool of session.tools()) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      names.push(tool.name);
    }
    for (const name of [
      'echo',
      'get-sum',
      'get-structured-content',
      'trigger-long-running-operation',
      'toggle-simulated-logging',
      'toggle-subscriber-updates',
      // Registered only for clients that declared roots, sampling and elicitation.
      'get-roots-list',
      'trigger-sampling-request',
      'trigger-elicitation-request',
    ]) {
      assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`);
    }
  });

  test('callTool: echo and get-sum', async () => {
    const echo = await session.callTool('echo', { message: 'hello from mcpwire' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hello from mcpwire' }]);
    const sum = await session.callTool('get-sum', { a: 2, b: 40 });
    assert.deepEqual(sum.content, [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
  });

  test('callTool: get-structured-content is checked against its outputSchema', async () => {
    const result = await session.callTool('get-structured-content', { location: 'Chicago' });
    assert.deepEqual(result.structuredContent, {
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    assert.deepEqual(JSON.parse(toolText(result)), result.structuredContent);
  });

  test('resources: list, read a static one, read the text and blob templates', async () => {
    const resources = [];
    for await (const resource of session.resources()) resources.push(resource);
    const instructions = resources.find((r) => r.uri === 'demo://resource/static/document/instructions.md');
    assert.ok(instructions, `no instructions.md among ${resources.map((r) => r.uri).join(', ')}`);
    assert.equal(instructions.mimeType, 'text/markdown');
    const read = await session.readResource(instructions.uri);
    assert.equal(read.contents.length, 1);
    assert.equal(read.contents[0]?.uri, instructions.uri);
    // The same file is what the server sent as its instructions.
    assert.equal((read.contents[0] as { text: string }).text, session.instructions);

    const templates = [];
    for await (const template of session.resourceTemplates()) templates.push(template.uriTemplate);
    assert.ok(templates.includes('demo://resource/dynamic/text/{resourceId}'), templates.join(', '));
    assert.ok(templates.includes('demo://resource/dynamic/blob/{resourceId}'), templates.join(', '));
    const textItem = await session.readResource('demo://resource/dynamic/text/5');
    assert.equal(textItem.contents[0]?.uri, 'demo://resource/dynamic/text/5');
    assert.match(
      (textItem.contents[0] as { text: string }).text,
      /^Resource 5: This is a plaintext resource created at /,
    );
    const blobItem = await session.readResource('demo://resource/dynamic/blob/3');
    const blob = Buffer.from((blobItem.contents[0] as { blob: string }).blob, 'base64').toString('utf8');
    assert.match(blob, /^Resource 3: This is a base64 blob created at /);
  });

  test('prompts: list, get one without and one with arguments', async () => {
    const prompts = new Map<
      string,
      { name: string; arguments?: Array<{ name: string; required?: boolean }> }
    >();
    for await (const prompt of session.prompts()) prompts.set(prompt.name, prompt);
    for (const name of ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']) {
      assert.ok(prompts.has(name), `no prompt ${name}`);
    }
    assert.deepEqual(
      prompts.get('args-prompt')?.arguments?.map((a) => [a.name, a.required]),
      [
        ['city', true],
        ['state', false],
      ],
    );
    const simple = await session.getPrompt('simple-prompt');
    assert.deepEqual(simple.messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
    ]);
    const args = await session.getPrompt('args-prompt', { city: 'Paris', state: 'Texas' });
    assert.deepEqual(args.messages, [
      { role: 'user', content: { type: 'text', text: "What's weather in Paris, Texas?" } },
    ]);
    const embedded = await session.getPrompt('resource-prompt', { resourceType: 'Text', resourceId: '2' });
    assert.equal(embedded.messages.length, 2);
    const resource = embedded.messages[1]?.content as { type: string; resource: { uri: string } };
    assert.equal(resource.type, 'resource');
    assert.equal(resource.resource.uri, 'demo://resource/dynamic/text/2');
  });

  test('completion: prompt arguments (with context) and a template variable', async () => {
    assert.deepEqual(session.serverCapabilities.completions, {});
    const departments = await session.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'department', value: 'S' },
    );
    assert.deepEqual(departments.completion.values, ['Sales', 'Support']);
    const names = await session.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'name', value: '' },
      { arguments: { department: 'Engineering' } },
    );
    assert.deepEqual(names.completion.values, ['Alice', 'Bob', 'Charlie']);
    const ids = await session.complete(
      { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
      { name: 'resourceId', value: '12' },
    );
    assert.deepEqual(ids.completion.values, ['12']);
  });

  test('trigger-long-running-operation: progress through onprogress, in order, before the result', async () => {
    const events: Array<Progress | 'result'> = [];
    const result = await session.callTool(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 4 },
      { onprogress: (progress) => events.push(progress) },
    );
    events.push('result');
    // server-everything sends no message; our Progress always has the key (one object shape).
    assert.deepEqual(events, [
      { progress: 1, total: 4, message: undefined },
      { progress: 2, total: 4, message: undefined },
      { progress: 3, total: 4, message: undefined },
      { progress: 4, total: 4, message: undefined },
      'result',
    ]);
    assert.equal(toolText(result), 'Long running operation completed. Duration: 0.2 seconds, Steps: 4.');
  });

  test('roots: get-roots-list sees our roots, and the new ones after setRoots', async () => {
    const first = await session.callTool('get-roots-list');
    assert.match(
      toolText(first),
      /^Current MCP Roots \(1 total\):\n\n1\. project\n {3}URI: file:\/\/\/work\/project\n/,
    );

    await session.setRoots([{ uri: 'file:///work/a', name: 'alpha' }, { uri: 'file:///work/b' }]);
    // It refreshes its cached roots asynchronously on list_changed, once our answer to its roots/list arrives: poll.
    let latest = '';
    await until(
      async () => {
        latest = toolText(await session.callTool('get-roots-list'));
        return latest.startsWith('Current MCP Roots (2 total)');
      },
      20_000,
      'get-roots-list to list the new roots',
    ).catch(() => {}); // asserted below, with what it listed
    assert.match(
      latest,
      /^Current MCP Roots \(2 total\):\n\n1\. alpha\n {3}URI: file:\/\/\/work\/a\n\n2\. Unnamed Root\n {3}URI: file:\/\/\/work\/b\n/,
    );
  });

  test('sampling: trigger-sampling-request is answered by our sampling handler', async () => {
    samplingRequests.length = 0;
    const result = await session.callTool('trigger-sampling-request', {
      prompt: 'What is 6 x 7?',
      maxTokens: 50,
    });
    assert.deepEqual(samplingRequests, [
      {
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: 'Resource trigger-sampling-request context: What is 6 x 7?' },
          },
        ],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 50,
        temperature: 0.7,
      },
    ]);
    const body = toolText(result);
    assert.ok(body.startsWith('LLM sampling result: \n'), body);
    assert.deepEqual(JSON.parse(body.slice('LLM sampling result: \n'.length)), {
      role: 'assistant',
      content: { type: 'text', text: 'Sampled by mcpwire: forty-two' },
      model: 'mcpwire-test-model',
      stopReason: 'endTurn',
    });
  });

  test('elicitation: trigger-elicitation-request is answered by our form handler (defaults filled in)', async () => {
    elicitRequests.length = 0;
    const result = await session.callTool('trigger-elicitation-request');
    assert.equal(elicitRequests.length, 1);
    assert.equal(elicitRequests[0]?.message, 'Please provide inputs for the following fields:');
    assert.deepEqual(elicitRequests[0]?.requestedSchema.required, ['name']);
    const body = toolText(result);
    assert.match(body, /^✅ User provided the requested information!\nUser inputs:\n- Name: Grace Hopper\n/);
    assert.match(body, /- Agreed to terms: true\n/);
    assert.match(body, /- Email: grace@example.com\n/);
    // Left out by our handler, filled from the schema's defaults before answering (SEP-1034).
    assert.match(body, /- Favorite Integer: 42\n/);
    assert.match(body, /- Favorite Number: 3.14\n/);
    const raw = JSON.parse(body.slice(body.indexOf('Raw result: ') + 'Raw result: '.length)) as {
      action: string;
      content: Record<string, unknown>;
    };
    assert.equal(raw.action, 'accept');
    assert.equal(raw.content.firstLine, 'It was a dark and stormy night.');
    assert.deepEqual(raw.content.untitledMultipleSelectEnum, ['Guitar']);
  });

  test('logging: setLoggingLevel, and a simulated log message arrives as a log event', async () => {
    await session.setLoggingLevel('debug');
    const logged = nextEvent<LoggingMessageNotificationParams>(
      (listener) => session.on('log', listener),
      (params) => typeof params.data === 'string' && /^\w+[- ]level[- ]message/i.test(params.data),
      5000,
      'a simulated log message',
    );
    const started = await session.callTool('toggle-simulated-logging');
    assert.match(toolText(started), /^Started simulated, random-leveled logging/);
    try {
      const params = await logged;
      assert.ok(
        ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].includes(
          params.level,
        ),
      );
    } finally {
      const stopped = await session.callTool('toggle-simulated-logging');
      assert.match(toolText(stopped), /^Stopped simulated logging/);
    }
  });

  test('subscription: subscribe, and resourceUpdated arrives for the subscribed URI', async () => {
    const uri = 'demo://resource/static/document/features.md';
    await session.subscribeResource(uri);
    const updated = nextEvent<ResourceUpdatedNotificationParams>(
      (listener) => session.on('resourceUpdated', listener),
      (params) => params.uri === uri,
      5000,
      `notifications/resources/updated for ${uri}`,
    );
    const started = await session.callTool('toggle-subscriber-updates');
    assert.match(toolText(started), /^Started simulated resource updated notifications/);
    try {
      assert.deepEqual(await updated, { uri });
    } finally {
      await session.callTool('toggle-subscriber-updates');
      await session.unsubscribeResource(uri);
    }
  });

  test('ping, and no error reported on our side', async () => {
    await session.ping();
    assert.deepEqual(errors, []);
  });

  test('close: the child exits on end of stdin and the session reports a clean close', async () => {
    let cause: Error | undefined | 'open' = 'open';
    session.onclose = (err) => {
      cause = err;
    };
    const pid = connection.pid;
    assert.equal(typeof pid, 'number');
    const started = performance.now();
    await session.close();
    // Within the grace, after which close would have sent SIGTERM: the child left on its own.
    assert.ok(performance.now() - started < CLOSE_GRACE_MS, `close took ${performance.now() - started} ms`);
    assert.equal(cause, undefined);
    assert.throws(() => process.kill(pid as number, 0), { code: 'ESRCH' });
  });
});
