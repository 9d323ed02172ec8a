import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createFixtureServer,
  JSON_SCHEMA_2020_12_INPUT,
  PNG_BASE64,
  WAV_BASE64,
} from '../../examples/conformance/fixture-server.js';
import type { ClientSession } from '../../src/client/client-session.js';
import { Client } from '../../src/client/index.js';
import { createMemoryPair } from '../../src/peer/memory.js';
import type { Progress } from '../../src/peer/peer-options.js';
import type {
  CreateMessageRequestParams,
  ElicitRequestFormParams,
  LoggingMessageNotificationParams,
} from '../../src/protocol/types.js';
import { Method } from '../../src/protocol/types.js';

// The conformance suite's client answers server requests with these canned replies.
const SAMPLING_REPLY = {
  role: 'assistant' as const,
  content: { type: 'text' as const, text: 'This is a test response from the client' },
  model: 'test-model',
  stopReason: 'endTurn',
};
const ANSWERS: Record<string, Record<string, string | number | boolean | string[]>> = {
  'Please provide your information': { username: 'testuser', email: 'test@example.com' },
  'Please review and update the form fields with defaults': {
    name: 'Jane Smith',
    age: 25,
    score: 88,
    status: 'inactive',
    verified: false,
  },
  'Please select options from the enum fields': {
    untitledSingle: 'option1',
    titledSingle: 'value1',
    legacyEnum: 'opt1',
    untitledMulti: ['option1', 'option2'],
    titledMulti: ['value1', 'value2'],
  },
};

const TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_reconnection',
  'json_schema_2020_12_tool',
  // fixture-2026.ts
  'test_custom_header',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  // fixture-tasks.ts
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

describe('conformance fixture server', () => {
  let session: ClientSession;
  const sampled: CreateMessageRequestParams[] = [];
  const elicited: ElicitRequestFormParams[] = [];

  before(async () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    createFixtureServer().connect(serverEnd);
    const client = new Client(
      { name: 'conformance-test-client', version: '1.0.0' },
      {
        sampling: (params) => {
          sampled.push(params);
          return SAMPLING_REPLY;
        },
        elicitation: {
          form: (params) => {
            elicited.push(params);
            return { action: 'accept', content: ANSWERS[params.message] };
          },
        },
      },
    );
    session = await client.connect(clientEnd);
  });

  after(() => session.close());

  /** The text of a tool result's only text item. */
  async function callText(name: string, args?: Record<string, unknown>): Promise<string> {
    const result = await session.callTool(name, args as never);
    assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result)}`);
    const [item] = result.content;
    assert.equal(item.type, 'text');
    return item.text;
  }

  /** Collects `log` events while `run` runs. */
  async function logsDuring(run: () => Promise<unknown>): Promise<LoggingMessageNotificationParams[]> {
    const logs: LoggingMessageNotificationParams[] = [];
    const off = session.on('log', (params) => logs.push(params));
    try {
      await run();
    } finally {
      off();
    }
    return logs;
  }

  test('initialize announces tools, resources with subscribe, prompts, logging and completions', () => {
    const caps = session.serverCapabilities;
    assert.ok(caps.tools);
    assert.equal(caps.resources?.subscribe, true);
    assert.ok(caps.prompts);
    assert.ok(caps.logging);
    assert.ok(caps.completions);
  });

  test('ping and logging/setLevel answer an empty result', async () => {
    assert.deepEqual(await session.request(Method.Ping), {});
    assert.deepEqual(await session.request(Method.LoggingSetLevel, { level: 'info' }), {});
  });

  test('tools/list: every tool has a description and an object inputSchema', async () => {
    const { tools } = await session.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const tool of tools) {
      assert.ok(tool.description, `${tool.name} has no description`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name}'s inputSchema is not an object schema`);
    }
  });

  test('json_schema_2020_12_tool is published verbatim and validates with 2020-12 semantics', async () => {
    const { tools } = await session.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool')!;
    assert.deepEqual(tool.inputSchema, JSON_SCHEMA_2020_12_INPUT);
    assert.match(
      await callText('json_schema_2020_12_tool', { name: 'Ada', address: { street: 'Main', city: 'X' } }),
      /Ada/,
    );
    const refused = await session.callTool('json_schema_2020_12_tool', { name: 'Ada', extra: 1 });
    assert.equal(refused.isError, true);
    const badRef = await session.callTool('json_schema_2020_12_tool', { address: { city: 7 } });
    assert.equal(badRef.isError, true);
  });

  test('content tools return their texts and media', async () => {
    assert.equal(await callText('test_simple_text'), 'This is a simple text response for testing.');

    const image = (await session.callTool('test_image_content', {})).content[0];
    assert.deepEqual(image, { type: 'image', data: PNG_BASE64, mimeType: 'image/png' });
    assert.deepEqual(
      [...Buffer.from(PNG_BASE64, 'base64').subarray(0, 8)],
      [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    );

    const audio = (await session.callTool('test_audio_content', {})).content[0];
    assert.deepEqual(audio, { type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' });
    const wav = Buffer.from(WAV_BASE64, 'base64');
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.readUInt32LE(4), wav.length - 8);

    const embedded = (await session.callTool('test_embedded_resource', {})).content;
    assert.deepEqual(embedded, [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]);

    const mixed = (await session.callTool('test_multiple_content_types', {})).content;
    assert.deepEqual(mixed, [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ]);
  });

  test('test_tool_with_logging sends three info messages, spread out, before its result', async () => {
    await session.setLoggingLevel('debug');
    const started = performance.now();
    let text = '';
    const logs = await logsDuring(async () => {
      text = await callText('test_tool_with_logging', {});
    });
    assert.ok(performance.now() - started >= 95, 'the three messages are ~50 ms apart');
    assert.equal(text, 'Tool with logging executed successfully');
    assert.deepEqual(logs, [
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
  });

  test('test_tool_with_logging honours the level the client set', async () => {
    await session.setLoggingLevel('warning');
    const logs = await logsDuring(() => callText('test_tool_with_logging', {}));
    assert.deepEqual(logs, []);
    await session.setLoggingLevel('debug');
  });

  test('test_tool_with_progress reports 0, 50, 100 of 100 with a token, and nothing without', async () => {
    const progress: Progress[] = [];
    const result = await session.callTool(
      'test_tool_with_progress',
      {},
      { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
    );
    assert.notEqual(result.isError, true);
    assert.deepEqual(progress, [
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);

    const unclaimed: unknown[] = [];
    const off = session.on('progress', (p) => unclaimed.push(p));
    await callText('test_tool_with_progress', {});
    off();
    assert.deepEqual(unclaimed, []);
  });

  test('test_error_handling returns a tool error, not a JSON-RPC error', async () => {
    const result = await session.callTool('test_error_handling', {});
    assert.deepEqual(result, {
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });

  test('test_sampling asks the client for one user message with maxTokens 100', async () => {
    sampled.length = 0;
    const text = await callText('test_sampling', { prompt: 'Test prompt for sampling' });
    assert.equal(text, 'LLM response: This is a test response from the client');
    assert.equal(sampled.length, 1);
    assert.deepEqual(sampled[0].messages, [
      { role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } },
    ]);
    assert.equal(sampled[0].maxTokens, 100);
  });

  test('test_elicitation asks for a username and an email and reports the answer', async () => {
    elicited.length = 0;
    const text = await callText('test_elicitation', { message: 'Please provide your information' });
    assert.equal(
      text,
      'User response: action=accept, content={"username":"testuser","email":"test@example.com"}',
    );
    assert.equal(elicited.length, 1);
    assert.equal(elicited[0].message, 'Please provide your information');
    assert.deepEqual(Object.keys(elicited[0].requestedSchema.properties), ['username', 'email']);
    assert.deepEqual(elicited[0].requestedSchema.required, ['username', 'email']);
  });

  test('test_elicitation_sep1034_defaults requests a default for every primitive type', async () => {
    elicited.length = 0;
    const text = await callText('test_elicitation_sep1034_defaults', {});
    assert.equal(
      text,
      'Elicitation completed: action=accept, content=' +
        '{"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
    );
    const schema = elicited[0].requestedSchema;
    assert.deepEqual(schema.required, []);
    assert.deepEqual(schema.properties, {
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: {
        type: 'string',
        description: 'User status',
        enum: ['active', 'inactive', 'pending'],
        default: 'active',
      },
      verified: { type: 'boolean', description: 'Verification status', default: true },
    });
  });

  test('test_elicitation_sep1330_enums requests each enum variant in its own form', async () => {
    elicited.length = 0;
    const text = await callText('test_elicitation_sep1330_enums', {});
    assert.match(text, /^Elicitation completed: action=accept, content=\{"untitledSingle":"option1",/);
    const p = elicited[0].requestedSchema.properties as Record<string, any>;
    assert.deepEqual(elicited[0].requestedSchema.required, []);
    assert.deepEqual(Object.keys(p), [
      'untitledSingle',
      'titledSingle',
      'legacyEnum',
      'untitledMulti',
      'titledMulti',
    ]);
    assert.equal(p.untitledSingle.type, 'string');
    assert.deepEqual(p.untitledSingle.enum, ['option1', 'option2', 'option3']);
    assert.equal(p.untitledSingle.oneOf ?? p.untitledSingle.enumNames, undefined);

    assert.equal(p.titledSingle.type, 'string');
    assert.deepEqual(
      p.titledSingle.oneOf.map((o: any) => [o.const, typeof o.title]),
      [
        ['value1', 'string'],
        ['value2', 'string'],
        ['value3', 'string'],
      ],
    );
    assert.equal(p.titledSingle.enum, undefined);

    assert.deepEqual(p.legacyEnum.enum, ['opt1', 'opt2', 'opt3']);
    assert.equal(p.legacyEnum.enumNames.length, 3);

    assert.equal(p.untitledMulti.type, 'array');
    assert.deepEqual(p.untitledMulti.items, { type: 'string', enum: ['option1', 'option2', 'option3'] });

    assert.equal(p.titledMulti.type, 'array');
    assert.deepEqual(
      p.titledMulti.items.anyOf.map((o: any) => o.const),
      ['value1', 'value2', 'value3'],
    );
    assert.equal(p.titledMulti.items.enum, undefined);
  });

  test('test_reconnection completes where the transport cannot end the stream early', async () => {
    assert.equal(await callText('test_reconnection', {}), 'Reconnection test completed successfully');
  });

  test('resources: the listed three, the template, reads and subscriptions', async () => {
    const { resources } = await session.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), [
      'test://static-binary',
      'test://static-text',
      'test://watched-resource',
    ]);
    for (const r of resources) assert.ok(r.name && r.mimeType && r.description);

    const { resourceTemplates } = await session.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ['test://template/{id}/data'],
    );

    assert.deepEqual((await session.readResource('test://static-text')).contents, [
      {
        uri: 'test://static-text',
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      },
    ]);
    assert.deepEqual((await session.readResource('test://static-binary')).contents, [
      { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_BASE64 },
    ]);
    assert.deepEqual((await session.readResource('test://watched-resource')).contents, [
      { uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' },
    ]);
    assert.deepEqual((await session.readResource('test://template/123/data')).contents, [
      {
        uri: 'test://template/123/data',
        mimeType: 'application/json',
        text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
      },
    ]);

    const uri = { uri: 'test://watched-resource' };
    assert.deepEqual(await session.request(Method.ResourcesSubscribe, uri), {});
    assert.deepEqual(await session.request(Method.ResourcesUnsubscribe, uri), {});
  });

  test('prompts: five described prompts and the messages of the 2025 four', async () => {
    const { prompts } = await session.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [
      'test_input_required_result_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    for (const p of prompts) assert.ok(p.description, `${p.name} has no description`);

    assert.deepEqual((await session.getPrompt('test_simple_prompt')).messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    assert.deepEqual(
      (await session.getPrompt('test_prompt_with_arguments', { arg1: 'testValue1', arg2: 'testValue2' }))
        .messages,
      [
        {
          role: 'user',
          content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" },
        },
      ],
    );
    assert.deepEqual(
      (
        await session.getPrompt('test_prompt_with_embedded_resource', {
          resourceUri: 'test://example-resource',
        })
      ).messages,
      [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: 'test://example-resource',
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    );
    assert.deepEqual((await session.getPrompt('test_prompt_with_image')).messages, [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ]);
  });

  test('completion/complete suggests values for test_prompt_with_arguments', async () => {
    const result = await session.complete(
      { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      { name: 'arg1', value: 'test' },
    );
    assert.deepEqual(result.completion.values, ['testValue1', 'testValue2', 'testValue3']);
  });
});
