import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { Method } from '../protocol/types.js';
import type { ServerContext } from '../server/context.js';
import type { MethodHandler } from '../server/methods.js';
import type { Server } from '../server/server.js';
import { HiddenTools } from './hidden-tools.js';

const SERVER = {} as Server;
const CTX = {} as ServerContext;
const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

test('a pattern is a name, * any run of characters, nothing else special', () => {
  const hidden = new HiddenTools(['delete_*', 'exact', 'a.b', '*_admin']);
  assert.ok(hidden.hides('delete_file'));
  assert.ok(hidden.hides('delete_'));
  assert.ok(hidden.hides('exact'));
  assert.ok(hidden.hides('a.b'));
  assert.ok(hidden.hides('reset_admin'));
  assert.ok(!hidden.hides('undelete_file'), 'anchored at the start');
  assert.ok(!hidden.hides('exactly'), 'anchored at the end');
  assert.ok(!hidden.hides('aXb'), 'a dot is a dot');
  assert.ok(!hidden.hides(42));
  assert.ok(new HiddenTools(['*']).hides('anything'));
});

function table(calls: string[]): Record<string, MethodHandler> {
  return {
    [Method.ToolsList]: async () => ({
      tools: [tool('read'), tool('delete_all'), tool('write')],
      nextCursor: 'n',
    }),
    [Method.ToolsCall]: (_s, params) => {
      calls.push((params as { name: string }).name);
      return { content: [] };
    },
  };
}

test('tools/list: the hidden tools left out of the page, the rest of it as it was', async () => {
  const methods = table([]);
  new HiddenTools(['delete_*']).hideIn(methods);
  const listed = await methods[Method.ToolsList]!(SERVER, {}, CTX);
  assert.deepEqual(listed, { tools: [tool('read'), tool('write')], nextCursor: 'n' });
});

test('tools/call of a hidden tool: -32602 Unknown tool, and the upstream never asked', async () => {
  const calls: string[] = [];
  const methods = table(calls);
  new HiddenTools(['delete_*']).hideIn(methods);
  assert.throws(
    () => methods[Method.ToolsCall]!(SERVER, { name: 'delete_all' }, CTX),
    (err: unknown) =>
      err instanceof McpError &&
      err.code === ErrorCode.InvalidParams &&
      err.message === 'Unknown tool: delete_all',
  );
  assert.deepEqual(await methods[Method.ToolsCall]!(SERVER, { name: 'read' }, CTX), { content: [] });
  assert.deepEqual(calls, ['read']);
});

test('an upstream without tools: nothing to hide, the table left alone', () => {
  const methods: Record<string, MethodHandler> = {};
  new HiddenTools(['x']).hideIn(methods);
  assert.deepEqual(methods, {});
});
