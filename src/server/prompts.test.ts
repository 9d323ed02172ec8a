import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { GetPromptResult } from '../protocol/types.js';
import { FakeClient, settle } from '../test-support/fake-client.js';
import { Server } from './server.js';

function review(args: Record<string, string>): GetPromptResult {
  return {
    description: 'Code review',
    messages: [
      { role: 'user', content: { type: 'text', text: `Review (${args.language ?? 'any'}): ${args.code}` } },
    ],
  };
}

async function connected(server: Server) {
  const client = new FakeClient(server);
  const init = await client.initialize();
  return { client, init };
}

describe('prompts', () => {
  test('prompts/list publishes the arguments without their completers', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt(
      {
        name: 'review',
        title: 'Review',
        arguments: [
          { name: 'code', required: true },
          { name: 'language', description: 'Language', complete: () => ['python'] },
        ],
      },
      review,
    );
    const { client, init } = await connected(server);
    assert.deepEqual(init.capabilities.prompts, { listChanged: true });
    assert.deepEqual(await client.result('prompts/list'), {
      prompts: [
        {
          name: 'review',
          title: 'Review',
          arguments: [
            { name: 'code', required: true },
            { name: 'language', description: 'Language' },
          ],
        },
      ],
    });
  });

  test('prompts/get passes the arguments and returns the messages', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt(
      { name: 'review', arguments: [{ name: 'code', required: true }, { name: 'language' }] },
      review,
    );
    const { client } = await connected(server);
    const result = await client.result('prompts/get', {
      name: 'review',
      arguments: { code: 'x = 1', language: 'py' },
    });
    assert.deepEqual(result, review({ code: 'x = 1', language: 'py' }));
  });

  test('a missing required argument is -32602 naming it; so is an unknown prompt', async () => {
    const server = new Server({ name: 's', version: '1' });
    let ran = false;
    server.prompt({ name: 'review', arguments: [{ name: 'code', required: true }] }, (args) => {
      ran = true;
      return review(args);
    });
    const { client } = await connected(server);
    const missing = await client.call('prompts/get', { name: 'review', arguments: { language: 'py' } });
    assert.equal(missing.error.code, ErrorCode.InvalidParams);
    assert.match(missing.error.message, /"code"/);
    assert.equal(ran, false);
    const unknown = await client.call('prompts/get', { name: 'nope' });
    assert.deepEqual(unknown.error, { code: ErrorCode.InvalidParams, message: 'Unknown prompt: nope' });
  });

  test('a prompt change sends prompts/list_changed', async () => {
    const server = new Server({ name: 's', version: '1' });
    const p = server.prompt({ name: 'a' }, () => ({ messages: [] }));
    const { client } = await connected(server);
    p.update({ description: 'described' });
    await settle();
    assert.equal(client.notifications('notifications/prompts/list_changed').length, 1);
    assert.equal((await client.result('prompts/list')).prompts[0].description, 'described');
  });
});

describe('completion/complete', () => {
  test('completes a prompt argument with the context of resolved arguments', async () => {
    const server = new Server({ name: 's', version: '1' });
    const contexts: unknown[] = [];
    server.prompt(
      {
        name: 'review',
        arguments: [{ name: 'language' }, { name: 'framework' }],
        complete: {
          framework: (value, context) => {
            contexts.push(context.arguments);
            return ['flask', 'fastapi', 'django'].filter((f) => f.startsWith(value));
          },
        },
      },
      review,
    );
    const { client, init } = await connected(server);
    assert.deepEqual(init.capabilities.completions, {});
    const result = await client.result('completion/complete', {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'framework', value: 'f' },
      context: { arguments: { language: 'python' } },
    });
    assert.deepEqual(result, { completion: { values: ['flask', 'fastapi'], total: 2, hasMore: false } });
    assert.deepEqual(contexts, [{ language: 'python' }]);
  });

  test('completes a template variable, capping values at 100', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.resourceTemplate(
      { uriTemplate: 'file:///{path}', name: 'files' },
      {
        read: (uri) => ({ contents: [{ uri, text: '' }] }),
        complete: { path: async (value) => Array.from({ length: 150 }, (_, i) => `${value}${i}`) },
      },
    );
    const { client } = await connected(server);
    const result = await client.result('completion/complete', {
      ref: { type: 'ref/resource', uri: 'file:///{path}' },
      argument: { name: 'path', value: 'src/' },
    });
    assert.equal(result.completion.values.length, 100);
    assert.equal(result.completion.values[0], 'src/0');
    assert.equal(result.completion.total, 150);
    assert.equal(result.completion.hasMore, true);
  });

  test('no completer means no values; an unknown prompt or template is -32602', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.prompt({ name: 'plain', arguments: [{ name: 'x' }] }, () => ({ messages: [] }));
    const { client, init } = await connected(server);
    assert.equal(init.capabilities.completions, undefined);
    const empty = await client.result('completion/complete', {
      ref: { type: 'ref/prompt', name: 'plain' },
      argument: { name: 'x', value: '' },
    });
    assert.deepEqual(empty, { completion: { values: [], total: 0, hasMore: false } });
    for (const ref of [
      { type: 'ref/prompt', name: 'nope' },
      { type: 'ref/resource', uri: 'nope://{x}' },
    ]) {
      const response = await client.call('completion/complete', { ref, argument: { name: 'x', value: '' } });
      assert.equal(response.error.code, ErrorCode.InvalidParams);
    }
  });
});
