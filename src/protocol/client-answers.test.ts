import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkClientAnswer, questionOf } from './client-answers.js';

const ELICIT = 'elicitation/create';
const SAMPLE = 'sampling/createMessage';
const ROOTS = 'roots/list';

const form = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
    required: ['name'],
  },
};

/** Where and how the answer is refused, as `at problem`; or 'ok'. */
function verdict(method: string, params: Record<string, unknown> | undefined, result: unknown): string {
  const checked = checkClientAnswer(method, params, result);
  return checked.ok ? 'ok' : `${checked.at} ${checked.problem}`.trim();
}

describe('an elicitation answer', () => {
  test('accepted form content is checked against the requested schema', () => {
    assert.equal(verdict(ELICIT, form, { action: 'accept', content: { name: 'Ada', age: 36 } }), 'ok');
    assert.equal(
      verdict(ELICIT, form, { action: 'accept', content: 'Ada' }),
      ".content must be an object (the form's values by property name)",
    );
    assert.equal(verdict(ELICIT, form, { action: 'accept' }), '.content.name is required');
    assert.equal(
      verdict(ELICIT, form, { action: 'accept', content: { name: 'Ada', age: -1 } }),
      '.content.age must be at least 0',
    );
    // No field is required: an accept without content is an empty form.
    assert.equal(
      verdict(
        ELICIT,
        { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
        { action: 'accept' },
      ),
      'ok',
    );
  });

  test('the action is one of accept, decline and cancel', () => {
    assert.equal(
      verdict(ELICIT, form, { action: 'maybe' }),
      '.action must be "accept", "decline" or "cancel"',
    );
    assert.equal(verdict(ELICIT, form, {}), '.action must be "accept", "decline" or "cancel"');
    assert.equal(verdict(ELICIT, form, null), 'must be an object (the result of elicitation/create)');
    assert.equal(verdict(ELICIT, form, ['accept']), 'must be an object (the result of elicitation/create)');
  });

  test('content is left out where the spec has none: a decline, a cancel, a URL-mode accept', () => {
    for (const action of ['decline', 'cancel']) {
      const checked = checkClientAnswer(ELICIT, form, { action, content: { name: 5 } });
      assert.deepEqual(checked, { ok: true, value: { action } });
    }
    const url = { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/' };
    assert.deepEqual(checkClientAnswer(ELICIT, url, { action: 'accept', content: { token: 'x' } }), {
      ok: true,
      value: { action: 'accept' },
    });
  });

  test('an answer kept as it is when it fits: the very object', () => {
    const answer = { action: 'accept', content: { name: 'Ada' }, _meta: { trace: 1 } };
    const checked = checkClientAnswer(ELICIT, form, answer);
    assert.ok(checked.ok && checked.value === answer);
    assert.equal(verdict(ELICIT, form, { ...answer, _meta: 'x' }), '._meta must be an object');
  });

  test('a JSON-RPC response sent where the bare result belongs is named as such', () => {
    assert.equal(
      verdict(ELICIT, form, {
        jsonrpc: '2.0',
        id: 1,
        result: { action: 'accept', content: { name: 'Ada' } },
      }),
      'must be the bare result of elicitation/create, not a JSON-RPC response',
    );
  });
});

describe('a sampling answer', () => {
  const ask = { messages: [], maxTokens: 10 };
  const reply = {
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'm1',
    stopReason: 'endTurn',
  };

  test('a CreateMessageResult: role, content of the allowed types, model, an optional stopReason', () => {
    assert.equal(verdict(SAMPLE, ask, reply), 'ok');
    assert.equal(
      verdict(SAMPLE, ask, {
        ...reply,
        content: [reply.content, { type: 'image', data: 'AA==', mimeType: 'image/png' }],
      }),
      'ok',
    );
    assert.equal(verdict(SAMPLE, ask, { ...reply, model: undefined }), '.model must be a string');
    assert.equal(verdict(SAMPLE, ask, { ...reply, role: 'system' }), '.role must be "user" or "assistant"');
    assert.equal(verdict(SAMPLE, ask, { ...reply, stopReason: 1 }), '.stopReason must be a string');
    assert.equal(
      verdict(SAMPLE, ask, { ...reply, content: { type: 'text' } }),
      '.content.text must be a string',
    );
    assert.equal(
      verdict(SAMPLE, ask, { ...reply, content: [reply.content, { type: 'video' }] }),
      '.content[1].type must be "text", "image", "audio", "tool_use" or "tool_result"',
    );
  });

  test('a tool_use only of a tool the request offered (spec 2025-11-25: sampling with tools)', () => {
    const use = { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Paris' } };
    const withTools = { ...ask, tools: [{ name: 'weather', inputSchema: { type: 'object' } }] };
    assert.equal(verdict(SAMPLE, withTools, { ...reply, content: [use], stopReason: 'toolUse' }), 'ok');
    assert.equal(
      verdict(SAMPLE, withTools, { ...reply, content: { ...use, name: 'rm' } }),
      '.content.name must name a tool the request offered ("weather")',
    );
    assert.equal(
      verdict(SAMPLE, ask, { ...reply, content: [use] }),
      '.content[0].type must not be "tool_use": the request offered no tools',
    );
    assert.equal(
      verdict(SAMPLE, withTools, { ...reply, content: { ...use, input: 'x' } }),
      '.content.input must be an object',
    );
  });
});

describe('a roots answer', () => {
  test('a ListRootsResult: roots with file:// URIs and optional names', () => {
    assert.equal(verdict(ROOTS, undefined, { roots: [] }), 'ok');
    assert.equal(
      verdict(ROOTS, undefined, { roots: [{ uri: 'file:///home/ada', name: 'home' }, { uri: 'FILE:///x' }] }),
      'ok',
    );
    assert.equal(verdict(ROOTS, undefined, { roots: 'none' }), '.roots must be an array');
    assert.equal(verdict(ROOTS, undefined, {}), '.roots must be an array');
    assert.equal(
      verdict(ROOTS, undefined, { roots: [{ uri: 'https://example.com' }] }),
      '.roots[0].uri must be a file:// URI',
    );
    assert.equal(
      verdict(ROOTS, undefined, { roots: [{ uri: 'file:///a' }, 'file:///b'] }),
      '.roots[1] must be an object',
    );
    assert.equal(
      verdict(ROOTS, undefined, { roots: [{ uri: 'file:///a', name: 3 }] }),
      '.roots[0].name must be a string',
    );
  });
});

describe('questionOf', () => {
  test('keeps of a request only what its answer is checked against', () => {
    assert.deepEqual(questionOf(ELICIT, form), { requestedSchema: form.requestedSchema });
    assert.deepEqual(
      questionOf(ELICIT, { mode: 'url', message: 'm', elicitationId: 'e', url: 'https://x/' }),
      { mode: 'url' },
    );
    assert.deepEqual(
      questionOf(SAMPLE, {
        messages: [{ role: 'user', content: { type: 'text', text: 'long prompt' } }],
        maxTokens: 9,
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
      }),
      { tools: [{ name: 't' }] },
    );
    assert.equal(questionOf(SAMPLE, { messages: [], maxTokens: 9 }), undefined);
    assert.equal(questionOf(ROOTS, undefined), undefined);
  });

  test('other methods are taken as they are', () => {
    assert.deepEqual(checkClientAnswer('ping', undefined, {}), { ok: true, value: {} });
  });
});
