import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock, CreateMessageResult, ElicitResult } from '../../src/protocol/types.js';
import { Server } from '../../src/server/server.js';
import { MemoryTaskStore } from '../../src/tasks/memory-task-store.js';
import { registerFixture2026 } from './fixture-2026.js';
import { registerTaskTools } from './fixture-tasks.js';

/** A 1×1 PNG (one opaque pixel), for the image tool, the binary resource and the image prompt. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A valid WAV file: 8 samples of silence, mono, 8 kHz, 8-bit PCM. */
export const WAV_BASE64 = silentWav(8).toString('base64');

/** Pause between the notifications of the logging and progress tools, so that they arrive spread out. */
const STEP_MS = 50;

/** How long test_reconnection runs before it ends its HTTP response, and how long after that it finishes. */
const RECONNECT_CLOSE_AFTER_MS = 100;
const RECONNECT_FINISH_AFTER_MS = 200;

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

/**
 * The tool whose input schema the json-schema-2020-12 scenario expects to see published verbatim: with the
 * 2020-12 keywords SEP-1613 names, and the composition, conditional and `$anchor` ones SEP-2106 adds (each
 * chosen to accept what the scenario sends).
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'address',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }, { maxProperties: 0 }] }],
  if: { required: ['address'] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, which the scenario looks for; never awaited
  then: { properties: { address: { type: 'object' } } },
  else: { properties: { name: { type: 'string' } } },
  additionalProperties: false,
} as const;

/**
 * The server the official MCP conformance suite (`conformance server`: 0.1.16, and 0.2.0-alpha.12 at
 * both 2025-11-25 and 2026-07-28) tests against: every tool, resource, resource template and prompt
 * its server scenarios call, with the texts, schemas and timings they check (shared/conformance/FIXTURE.md
 * §1; the 2026 additions in fixture-2026.ts, per FIXTURE-2026.md). Capabilities follow from what is
 * registered: tools, resources (with subscribe), prompts, logging and completions.
 */
export function createFixtureServer(): Server {
  const server = new Server(
    { name: 'mcpwire-conformance-fixture', title: 'mcpwire conformance fixture', version: '0.1.0' },
    {
      instructions: 'The fixture of the MCP conformance suite; every feature has a test_* tool or resource.',
      // The tasks-* scenarios poll every 200 ms; the fixture asks for no less.
      tasks: { store: new MemoryTaskStore(), pollIntervalMs: 200 },
    },
  );
  registerTools(server);
  registerResources(server);
  registerPrompts(server);
  registerFixture2026(server);
  registerTaskTools(server);
  return server;
}

function registerTools(server: Server): void {
  const text = (t: string) => ({ content: [{ type: 'text', text: t }] as ContentBlock[] });

  server.tool(
    { name: 'test_simple_text', description: 'Returns a simple text response.', inputSchema: NO_ARGUMENTS },
    () => text('This is a simple text response for testing.'),
  );

  server.tool(
    { name: 'test_image_content', description: 'Returns a 1x1 PNG image.', inputSchema: NO_ARGUMENTS },
    () => ({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }),
  );

  server.tool(
    { name: 'test_audio_content', description: 'Returns a short WAV clip.', inputSchema: NO_ARGUMENTS },
    () => ({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }),
  );

  server.tool(
    {
      name: 'test_embedded_resource',
      description: 'Returns an embedded text resource.',
      inputSchema: NO_ARGUMENTS,
    },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );

  server.tool(
    {
      name: 'test_multiple_content_types',
      description: 'Returns text, an image and an embedded resource in one result.',
      inputSchema: NO_ARGUMENTS,
    },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );

  server.tool(
    {
      name: 'test_tool_with_logging',
      description: 'Sends three info log messages while it runs.',
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      await ctx.log('info', 'Tool execution started');
      await sleep(STEP_MS, undefined, { signal: ctx.signal });
      await ctx.log('info', 'Tool processing data');
      await sleep(STEP_MS, undefined, { signal: ctx.signal });
      await ctx.log('info', 'Tool execution completed');
      return text('Tool with logging executed successfully');
    },
  );

  server.tool(
    {
      name: 'test_tool_with_progress',
      description: 'Reports progress 0, 50 and 100 of 100 when the call carries a progress token.',
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(STEP_MS, undefined, { signal: ctx.signal });
        await ctx.sendProgress(progress, 100, `Completed step ${progress / 50 + 1} of 3`);
      }
      const token = ctx.meta?.progressToken;
      return text(
        `Tool with progress executed successfully (progress token: ${JSON.stringify(token ?? null)})`,
      );
    },
  );

  server.tool(
    {
      name: 'test_error_handling',
      description: 'Always fails, with a tool execution error.',
      inputSchema: NO_ARGUMENTS,
    },
    () => {
      // A thrown Error becomes a result with isError: true and this message, not a JSON-RPC error.
      throw new Error('This tool intentionally returns an error for testing');
    },
  );

  server.tool(
    {
      name: 'test_sampling',
      description: "Asks the client's LLM to answer a prompt and returns its reply.",
      inputSchema: {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
        required: ['prompt'],
      },
    },
    async (args, ctx) => {
      const reply = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: args.prompt as string } }],
        maxTokens: 100,
      });
      return text(`LLM response: ${replyText(reply)}`);
    },
  );

  server.tool(
    {
      name: 'test_elicitation',
      description: 'Asks the user, through the client, for a username and an email address.',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'The message to show the user' } },
        required: ['message'],
      },
    },
    async (args, ctx) => {
      const answer = await ctx.elicit({
        message: args.message as string,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: ${describeAnswer(answer)}`);
    },
  );

  server.tool(
    {
      name: 'test_elicitation_sep1034_defaults',
      description: 'Elicits a form whose fields all carry default values (SEP-1034).',
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
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
          },
          required: [],
        },
      });
      return text(`Elicitation completed: ${describeAnswer(answer)}`);
    },
  );

  server.tool(
    {
      name: 'test_elicitation_sep1330_enums',
      description:
        'Elicits a form with every enum variant: untitled, titled, legacy, multi-select (SEP-1330).',
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Untitled single-select enum',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Titled single-select enum',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Legacy titled enum (enumNames)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Untitled multi-select enum',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Titled multi-select enum',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      });
      return text(`Elicitation completed: ${describeAnswer(answer)}`);
    },
  );

  server.tool(
    {
      name: 'test_reconnection',
      description:
        'Ends its HTTP response mid-call, then completes: the client resumes the stream with GET and Last-Event-ID (SEP-1699).',
      inputSchema: NO_ARGUMENTS,
    },
    async (_args, ctx) => {
      await sleep(RECONNECT_CLOSE_AFTER_MS, undefined, { signal: ctx.signal });
      // Absent on transports that cannot resume streams: the call then simply completes.
      ctx.transport?.closeStream?.();
      await sleep(RECONNECT_FINISH_AFTER_MS, undefined, { signal: ctx.signal });
      return text('Reconnection test completed successfully');
    },
  );

  server.tool(
    {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: JSON_SCHEMA_2020_12_INPUT,
    },
    (args) => text(`Received: ${JSON.stringify(args)}`),
  );
}

function registerResources(server: Server): void {
  server.resource(
    {
      uri: 'test://static-text',
      name: 'static-text',
      title: 'Static text resource',
      description: 'A fixed text resource.',
      mimeType: 'text/plain',
    },
    (uri) => ({
      contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );

  server.resource(
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      title: 'Static binary resource',
      description: 'A 1x1 PNG image.',
      mimeType: 'image/png',
    },
    (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }] }),
  );

  server.resource(
    {
      uri: 'test://watched-resource',
      name: 'watched-resource',
      title: 'Watched resource',
      description: 'A resource clients may subscribe to.',
      mimeType: 'text/plain',
    },
    (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] }),
  );

  server.resourceTemplate(
    {
      uriTemplate: 'test://template/{id}/data',
      name: 'template-data',
      title: 'Template resource',
      description: 'JSON data for any id.',
      mimeType: 'application/json',
    },
    {
      read: (uri, vars) => {
        const id = String(vars.id);
        return {
          contents: [
            {
              uri,
              mimeType: 'application/json',
              text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
            },
          ],
        };
      },
    },
  );
}

/** Values offered for completion of test_prompt_with_arguments; the conformance run asks with `test`. */
const ARGUMENT_VALUES = ['testValue1', 'testValue2', 'testValue3'];
const completeArgument = (value: string) => ARGUMENT_VALUES.filter((v) => v.startsWith(value));

function registerPrompts(server: Server): void {
  server.prompt(
    { name: 'test_simple_prompt', title: 'Simple prompt', description: 'A prompt without arguments.' },
    () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    }),
  );

  server.prompt(
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt with arguments',
      description: 'A prompt that renders its two arguments.',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, complete: completeArgument },
        { name: 'arg2', description: 'Second test argument', required: true, complete: completeArgument },
      ],
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` },
        },
      ],
    }),
  );

  server.prompt(
    {
      name: 'test_prompt_with_embedded_resource',
      title: 'Prompt with an embedded resource',
      description: 'A prompt that embeds the resource it is given.',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: args.resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  server.prompt(
    { name: 'test_prompt_with_image', title: 'Prompt with an image', description: 'A prompt with an image.' },
    () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
}

/** The text of a sampling reply, whose content may be one block or several. */
function replyText(reply: CreateMessageResult): string {
  const blocks = Array.isArray(reply.content) ? reply.content : [reply.content];
  return blocks.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
}

function describeAnswer(answer: ElicitResult): string {
  return `action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
}

/** A PCM WAV file of `samples` silent 8-bit mono samples at 8 kHz. */
function silentWav(samples: number): Buffer {
  const wav = Buffer.alloc(44 + samples);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24); // sample rate
  wav.writeUInt32LE(8000, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples, 40);
  wav.fill(0x80, 44); // 8-bit PCM is unsigned: 128 is silence
  return wav;
}
