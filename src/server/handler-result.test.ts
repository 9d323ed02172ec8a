import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../jsonrpc/errors.js';
import { FakeClient } from '../test-support/fake-client.js';
import { Server } from './server.js';

/**
 * A server whose handlers answer with results that are not ones (what TypeScript's types would refuse, but a
 * JavaScript author or a value built at run time may give), and one handler of each that answers well.
 */
async function served() {
  const errors: Error[] = [];
  const server = new Server({ name: 's', version: '1' }, { onerror: (e) => errors.push(e) });
  const unchecked = server as unknown as {
    tool(def: object, handler: () => unknown): void;
    resource(def: object, read: () => unknown): void;
    prompt(def: object, get: () => unknown): void;
  };
  unchecked.tool({ name: 'text' }, () => ({ content: 'hi' }));
  unchecked.tool({ name: 'block' }, async () => ({
    content: [{ type: 'text', text: 'a' }, { type: 'txt' }],
  }));
  unchecked.tool({ name: 'fine' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  unchecked.resource({ uri: 'file:///bad', name: 'bad' }, async () => ({
    contents: [{ uri: 'file:///bad' }],
  }));
  unchecked.resource({ uri: 'file:///fine', name: 'fine' }, () => ({
    contents: [{ uri: 'file:///fine', text: '' }],
  }));
  unchecked.prompt({ name: 'system' }, () => ({
    messages: [{ role: 'system', content: { type: 'text', text: 'x' } }],
  }));
  unchecked.prompt({ name: 'numbers', arguments: [{ name: 'n', complete: () => [1, 2] }] }, () => ({
    messages: [],
  }));
  unchecked.prompt({ name: 'fine' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
  }));
  const client = new FakeClient(server);
  await client.initialize();
  return { client, errors };
}

describe("a handler's result that is not one for its method", () => {
  test('is -32603 naming the handler and the field, heard by onerror; a fitting one goes out', async () => {
    const { client, errors } = await served();
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'tools/call',
        { name: 'text' },
        'Tool "text" answered tools/call with a result that is not one: result.content must be an array',
      ],
      [
        'tools/call',
        { name: 'block' },
        'Tool "block" answered tools/call with a result that is not one: result.content[1].type must be "text", "image", "audio", "resource_link" or "resource"',
      ],
      [
        'resources/read',
        { uri: 'file:///bad' },
        'The resource "file:///bad" answered resources/read with a result that is not one: result.contents[0] must have a string "text" or "blob"',
      ],
      [
        'prompts/get',
        { name: 'system' },
        'Prompt "system" answered prompts/get with a result that is not one: result.messages[0].role must be "user" or "assistant"',
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'numbers' }, argument: { name: 'n', value: '' } },
        'The completer of "n" returned no array of strings',
      ],
    ];
    for (const [method, params, message] of cases) {
      const answer = await client.call(method, params);
      assert.equal(answer.error?.code, ErrorCode.InternalError, `${method} ${JSON.stringify(params)}`);
      assert.equal(answer.error.message, message);
    }
    assert.deepEqual(
      errors.map((e) => e.message),
      cases.map(([, , message]) => message),
    );
    assert.deepEqual(await client.result('tools/call', { name: 'fine' }), {
      content: [{ type: 'text', text: 'ok' }],
    });
    assert.equal((await client.result('resources/read', { uri: 'file:///fine' })).contents.length, 1);
    assert.equal((await client.result('prompts/get', { name: 'fine' })).messages.length, 1);
  });
});
