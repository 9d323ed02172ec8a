import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClientContext } from '../client/client-session.js';
import { McpError } from '../jsonrpc/errors.js';
import type { CreateMessageRequestParams } from '../protocol/types.js';
import { scriptedTerminal } from '../test-support/scripted-terminal.js';
import { cliSampling } from './call-sampling.js';
import { ProgressBar } from './progress-bar.js';
import { conversations, type Terminal } from './terminal.js';

const request: CreateMessageRequestParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
  maxTokens: 10,
};
const ctx = { signal: new AbortController().signal } as ClientContext;

const converse = (tty: Terminal) => conversations(tty, new ProgressBar(tty.output));

test('--sampling-reply answers every request with its text', async () => {
  const tty = scriptedTerminal(false);
  const handler = cliSampling('hello', tty, converse(tty));
  assert.deepEqual(await handler(request, ctx), {
    role: 'assistant',
    content: { type: 'text', text: 'hello' },
    model: 'mcpwire-call',
    stopReason: 'endTurn',
  });
});

test('with no terminal it refuses with the spec code -1 and says how to answer instead', () => {
  const tty = scriptedTerminal(false);
  const handler = cliSampling(undefined, tty, converse(tty));
  assert.throws(
    () => handler(request, ctx),
    (err: McpError) =>
      err instanceof McpError &&
      err.code === -1 &&
      /no --sampling-reply and has no terminal/.test(err.message),
  );
});

test('on a terminal it shows the messages and answers with the line typed; an empty line declines', async () => {
  const tty = scriptedTerminal(true, ['Hi there', '']);
  const handler = cliSampling(undefined, tty, converse(tty));
  const result = await handler(request, ctx);
  assert.deepEqual(result.content, { type: 'text', text: 'Hi there' });
  assert.match(tty.shown(), /The server asks for a model reply \(sampling\):\n {2}user: Say hi\n/);

  await assert.rejects(
    Promise.resolve(handler(request, ctx)),
    (err: McpError) => err.code === -1 && /User rejected/.test(err.message),
  );
});
