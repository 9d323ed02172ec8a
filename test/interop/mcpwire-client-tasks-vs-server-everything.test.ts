// Our client's 2025-11-25 tasks against @modelcontextprotocol/server-everything (the official reference server,
// official SDK v1) over stdio: its `simulate-research-query` tool must run as a task; callTool asks for one,
// waits on tasks/result (where the server asks its clarification, which our elicitation handler answers), hears
// the statuses the server pushes (`notifications/tasks/status`), and resolves with the report. Polls are set an
// hour apart: the call ends when the task does, on what the server sends. Peers no one here wrote.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession, spawnStdio, type Task } from '../../src/client/index.js';
import type { ElicitRequestFormParams } from '../../src/protocol/types.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 60_000;

describe('mcpwire Client tasks ↔ server-everything (stdio, 2025-11-25)', () => {
  let session: ClientSession;
  const asked: ElicitRequestFormParams[] = [];
  /** The methods of the requests our client sent. */
  const requested: string[] = [];

  before(async () => {
    assert.ok(
      existsSync(EVERYTHING),
      `${EVERYTHING} is missing: is @modelcontextprotocol/server-everything installed?`,
    );
    const client = new Client(
      { name: 'mcpwire-tasks-interop', version: '0.1.0' },
      {
        tasks: { minPollIntervalMs: 3_600_000, maxPollIntervalMs: 3_600_000 },
        requestTimeoutMs: MS,
        elicitation: {
          form: (params) => {
            asked.push(params);
            return { action: 'accept', content: { interpretation: 'programming' } };
          },
        },
      },
    );
    const connection = spawnStdio({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      closeGraceMs: 1000,
    });
    const send = connection.send.bind(connection);
    connection.send = (message, ...rest) => {
      if ('method' in message && 'id' in message) requested.push(message.method);
      return send(message, ...rest);
    };
    session = await within(client.connect(connection, { timeoutMs: MS }), MS, 'connect');
  });

  after(async () => {
    await session?.close();
  });

  test('the server declares tasks for tools/call, and the tool requires one', async () => {
    assert.equal(session.era, 'legacy');
    const tasks = session.serverCapabilities.tasks as Record<string, any>;
    assert.ok(tasks?.requests?.tools?.call, JSON.stringify(tasks));
    const tools: string[] = [];
    for await (const tool of session.tools())
      if (tool.execution?.taskSupport === 'required') tools.push(tool.name);
    assert.ok(tools.includes('simulate-research-query'), tools.join(', '));
  });

  test('callTool follows the task: statuses, the clarification asked and answered, the report', {
    timeout: 2 * MS,
  }, async () => {
    const seen: Task[] = [];
    requested.length = 0;
    const result = await within(
      session.callTool(
        'simulate-research-query',
        { topic: 'python', ambiguous: true },
        {
          ontask: (task) => seen.push(task),
        },
      ),
      MS,
      'the research task',
    );
    const text = toolText(result);
    assert.match(text, /# Research Report: python/);
    assert.equal(seen[0].status, 'working');
    assert.equal(seen.at(-1)!.status, 'completed');
    // Pushed by the server: the client polls no sooner than an hour.
    const waiting = seen.find((t) => t.status === 'input_required');
    assert.match(waiting?.statusMessage ?? '', /clarification/i, JSON.stringify(seen));
    assert.ok(requested.includes('tasks/result'), requested.join(' '));
    assert.ok(requested.filter((m) => m === 'tasks/get').length <= 1, requested.join(' '));
    assert.equal(seen[0].ttlMs, 300_000);
    assert.equal(asked.length, 1, 'the clarification was asked once');
    assert.match(text, /Clarification\*\*: programming/);
  });

  test('an aborted task is cancelled on the server: tasks/get then says cancelled', {
    timeout: 2 * MS,
  }, async () => {
    const abort = new AbortController();
    let taskId: string | undefined;
    const call = session.callTool(
      'simulate-research-query',
      { topic: 'rust' },
      {
        signal: abort.signal,
        ontask: (task) => {
          taskId ??= task.taskId;
          abort.abort(new Error('not needed'));
        },
      },
    );
    await assert.rejects(within(call, MS, 'the aborted task'), /cancelled/);
    assert.equal((await session.tasks.get(taskId!)).status, 'cancelled');
  });
});
