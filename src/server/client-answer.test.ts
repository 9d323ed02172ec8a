import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { ElicitRequestFormParams } from '../protocol/types.js';
import { FakeClient } from '../test-support/fake-client.js';
import { InvalidClientAnswerError } from './client-answer.js';
import { inputRequired } from './input-required.js';
import { Server } from './server.js';

/*
 * A 2025-11-25 session whose client answers the server's requests wrongly: the answer never reaches the
 * handler as if it were right; `ctx.elicit` & co reject with InvalidClientAnswerError, and a handler that
 * does not catch it fails its request with -32602 naming the field.
 */

const AGE: ElicitRequestFormParams = {
  message: 'How old are you?',
  requestedSchema: {
    type: 'object',
    properties: { age: { type: 'integer', minimum: 0 }, nick: { type: 'string', maxLength: 8 } },
    required: ['age'],
  },
};

const CAPS = { elicitation: {}, sampling: {}, roots: {} };

function serverWithTools() {
  const server = new Server({ name: 'answers', version: '1.0.0' });
  const after: string[] = [];
  server.tool({ name: 'age' }, async (_args, ctx) => {
    const answer = await ctx.elicit(AGE);
    after.push(`age ran on with ${JSON.stringify(answer)}`);
    return { content: [{ type: 'text', text: `${answer.action} ${String(answer.content?.age)}` }] };
  });
  server.tool({ name: 'patient' }, async (_args, ctx) => {
    // Asks again when the answer does not fit, saying which field was wrong.
    for (let tries = 0; ; tries++) {
      try {
        const answer = await ctx.elicit(AGE);
        return {
          content: [{ type: 'text', text: `age ${String(answer.content?.age)} after ${tries} retries` }],
        };
      } catch (err) {
        if (!(err instanceof InvalidClientAnswerError) || tries > 2) throw err;
        after.push(`${err.method} ${err.field}: ${err.problem}`);
      }
    }
  });
  server.tool({ name: 'sample' }, async (_args, ctx) => {
    const reply = await ctx.createMessage({ messages: [], maxTokens: 5 });
    after.push('sample ran on');
    return { content: [{ type: 'text', text: reply.model }] };
  });
  server.tool({ name: 'roots' }, async (_args, ctx) => {
    const { roots } = await ctx.request<{ roots: { uri: string }[] }>('roots/list');
    after.push('roots ran on');
    return { content: [{ type: 'text', text: roots.map((r) => r.uri).join(' ') }] };
  });
  server.tool({ name: 'own' }, (_args, ctx) => {
    if (ctx.inputResponses === undefined) {
      return inputRequired({
        inputRequests: { years: { method: 'elicitation/create', params: { ...AGE } } },
      });
    }
    after.push('own ran again');
    return { content: [{ type: 'text', text: JSON.stringify(ctx.inputResponses) }] };
  });
  return { server, after };
}

async function connected() {
  const { server, after } = serverWithTools();
  const client = new FakeClient(server);
  await client.initialize(CAPS);
  return { client, after };
}

describe('InvalidClientAnswerError', () => {
  test('is a -32602 McpError naming the method and the field, with both in its data', () => {
    const err = new InvalidClientAnswerError(
      'elicitation/create',
      'result.content.age',
      'must be an integer',
    );
    assert.ok(err instanceof McpError);
    assert.equal(err.name, 'InvalidClientAnswerError');
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.equal(
      err.message,
      'Invalid answer to elicitation/create from the client: result.content.age must be an integer',
    );
    assert.deepEqual(err.toJSON().data, { method: 'elicitation/create', field: 'result.content.age' });
  });
});

describe('answers on a 2025-11-25 session', () => {
  for (const [content, field, problem] of [
    [{ age: 'forty' }, 'result.content.age', 'must be an integer'],
    [{ nick: 'Ada' }, 'result.content.age', 'is required'],
    [{ age: -3 }, 'result.content.age', 'must be at least 0'],
    [{ age: 36, nick: 'Augusta Ada' }, 'result.content.nick', 'must have at most 8 characters'],
    ['36', 'result.content', "must be an object (the form's values by property name)"],
  ] as const) {
    test(`content ${JSON.stringify(content)} fails the call with -32602 naming ${field}; the handler goes no further`, async () => {
      const { client, after } = await connected();
      const response = client.call('tools/call', { name: 'age', arguments: {} });
      await client.answer('elicitation/create', { action: 'accept', content });
      const { error } = await response;
      assert.deepEqual(error, {
        code: ErrorCode.InvalidParams,
        message: `Invalid answer to elicitation/create from the client: ${field} ${problem}`,
        data: { method: 'elicitation/create', field },
      });
      assert.deepEqual(after, []);
    });
  }

  test('an unknown action is refused too; a decline reaches the handler without the content sent with it', async () => {
    const { client, after } = await connected();
    const refused = client.call('tools/call', { name: 'age', arguments: {} });
    await client.answer('elicitation/create', { action: 'ok' });
    assert.equal((await refused).error.data.field, 'result.action');
    const from = client.sent.length;
    const declined = client.call('tools/call', { name: 'age', arguments: {} });
    await client.answer('elicitation/create', { action: 'decline', content: { age: 'x' } }, from);
    assert.equal((await declined).result.content[0].text, 'decline undefined');
    assert.deepEqual(after, ['age ran on with {"action":"decline"}']);
  });

  test('a handler catches InvalidClientAnswerError, knows the field, and asks again', async () => {
    const { client, after } = await connected();
    const response = client.call('tools/call', { name: 'patient', arguments: {} });
    let from = 0;
    for (const content of [{ age: 4.5 }, { age: 30 }]) {
      const asked = await client.answer('elicitation/create', { action: 'accept', content }, from);
      from = client.sent.indexOf(asked) + 1;
    }
    assert.equal((await response).result.content[0].text, 'age 30 after 1 retries');
    assert.deepEqual(after, ['elicitation/create result.content.age: must be an integer']);
  });

  test('a sampling result of the wrong shape, and roots that are no file:// URIs, reject the call the same way', async () => {
    const { client, after } = await connected();
    const sampled = client.call('tools/call', { name: 'sample', arguments: {} });
    await client.answer('sampling/createMessage', {
      role: 'assistant',
      content: { type: 'text', text: 'hi' },
    });
    assert.deepEqual((await sampled).error.data, { method: 'sampling/createMessage', field: 'result.model' });
    // ctx.request, not only ctx.listRoots, is checked.
    const rooted = client.call('tools/call', { name: 'roots', arguments: {} });
    await client.answer('roots/list', { roots: [{ uri: 'https://example.com/repo' }] });
    const { error } = await rooted;
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.match(error.message, /result\.roots\[0\]\.uri must be a file:\/\/ URI/);
    assert.deepEqual(after, []);
  });

  test("a handler's own inputRequired answered wrongly fails the call before the handler runs again", async () => {
    const { client, after } = await connected();
    const wrong = client.call('tools/call', { name: 'own', arguments: {} });
    await client.answer('elicitation/create', { action: 'accept', content: { age: true } });
    assert.deepEqual((await wrong).error.data, { method: 'elicitation/create', field: 'result.content.age' });
    assert.deepEqual(after, []);
    const from = client.sent.length;
    const right = client.call('tools/call', { name: 'own', arguments: {} });
    await client.answer('elicitation/create', { action: 'accept', content: { age: 9 } }, from);
    assert.equal((await right).result.content[0].text, '{"years":{"action":"accept","content":{"age":9}}}');
  });
});
