import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { ClientContext } from '../client/client-session.js';
import { McpError } from '../jsonrpc/errors.js';
import type { CreateMessageRequestParams } from '../protocol/types.js';
import { cliSampling, type Terminal } from './call-sampling.js';
import { ProgressBar } from './progress-bar.js';

const request: CreateMessageRequestParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
  maxTokens: 10,
};
const ctx = { signal: new AbortController().signal } as ClientContext;

function terminal(isTTY: boolean): Terminal & { input: PassThrough; shown: () => string } {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = Object.assign(new PassThrough(), { isTTY });
  let shown = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    shown += chunk;
  });
  return { input, output, shown: () => shown };
}

test('--sampling-reply answers every request with its text', async () => {
  const handler = cliSampling('hello', terminal(false), new ProgressBar(terminal(false).output));
  assert.deepEqual(await handler(request, ctx), {
    role: 'assistant',
    content: { type: 'text', text: 'hello' },
    model: 'mcpwire-call',
    stopReason: 'endTurn',
  });
});

test('with no terminal it refuses with the spec code -1 and says how to answer instead', () => {
  const handler = cliSampling(undefined, terminal(false), new ProgressBar(terminal(false).output));
  assert.throws(
    () => handler(request, ctx),
    (err: McpError) =>
      err instanceof McpError &&
      err.code === -1 &&
      /no --sampling-reply and has no terminal/.test(err.message),
  );
});

test('on a terminal it shows the messages and answers with the line typed; an empty line declines', async () => {
  const tty = terminal(true);
  const handler = cliSampling(undefined, tty, new ProgressBar(tty.output));
  const answered = handler(request, ctx);
  setImmediate(() => tty.input.write('Hi there\n'));
  const result = await answered;
  assert.deepEqual(result.content, { type: 'text', text: 'Hi there' });
  assert.match(tty.shown(), /The server asks for a model reply \(sampling\):\n {2}user: Say hi\n/);

  const declined = Promise.resolve(handler(request, ctx));
  setImmediate(() => tty.input.write('\n'));
  await assert.rejects(declined, (err: McpError) => err.code === -1 && /User rejected/.test(err.message));
});
