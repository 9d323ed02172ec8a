import { ProtectedResource, type TokenGrant } from '../http/protected-resource.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { Server } from '../server/server.js';
import type { ServerOptions } from '../server/server-options.js';
import { MemoryTaskStore } from '../tasks/memory-task-store.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { Clock } from '../util/clock.js';
import { type Served, serveOn } from './mcp-http.js';

/** A gate a tool waits on, opened by the test: no timing in the tests. */
export class Gate {
  private opened!: () => void;
  readonly promise = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  open(): void {
    this.opened();
  }
}

/** Tokens of two principals, for the ownership tests. */
export const TASK_TOKENS: Record<string, TokenGrant> = {
  'ada-token': { principal: 'ada', scopes: [] },
  'bob-token': { principal: 'bob', scopes: [] },
};
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface TaskServer<S extends TaskStore = MemoryTaskStore> {
  readonly url: string;
  readonly server: Server;
  readonly store: S;
  readonly handler: StreamableHTTPHandler;
  /** Opened to let `gated` finish; a new gate per test (`gate = new Gate()`). */
  gate: Gate;
  /** What `gated` saw of its signal when it ended: `aborted` after a cancel. */
  readonly seen: { aborted?: boolean; reason?: unknown };
  readonly errors: Error[];
  close(): Promise<void>;
}

/**
 * A server that runs tools as tasks from a `MemoryTaskStore`, served at 127.0.0.1 behind bearer tokens of
 * `TASK_TOKENS` (with `anonymous`, behind none: every caller is the same, anonymous principal). Tools: `gated` (optional task; waits for `gate` or its signal), `needs_task` (required),
 * `asks` (optional; elicits a name, then greets), `deferred` (optional, `deferTask`: elicits by MRTR, then
 * `ctx.startTask()`, then waits for `gate`), `plain` (forbidden). Tasks are kept in `options.store` when given
 * (closed with the server), else in a new `MemoryTaskStore`.
 */
export async function serveTaskServer<S extends TaskStore = MemoryTaskStore>(
  options: { clock?: Clock; ttlMs?: number; server?: ServerOptions; store?: S; anonymous?: boolean } = {},
): Promise<TaskServer<S>> {
  const store = options.store ?? (new MemoryTaskStore({ clock: options.clock }) as TaskStore as S);
  const errors: Error[] = [];
  const server = new Server(
    { name: 'tasks', version: '1' },
    {
      ...options.server,
      tasks: { store, pollIntervalMs: 50, ttlMs: options.ttlMs },
      onerror: (e) => errors.push(e),
    },
  );
  const fixture = { gate: new Gate(), seen: {} as TaskServer['seen'] };
  server.tool({ name: 'gated', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      fixture.gate.promise.then(resolve);
      ctx.signal.addEventListener('abort', () => resolve());
    });
    fixture.seen.aborted = ctx.signal.aborted;
    fixture.seen.reason = ctx.signal.reason;
    return { content: [{ type: 'text', text: ctx.signal.aborted ? 'stopped' : 'done' }] };
  });
  server.tool({ name: 'needs_task', execution: { taskSupport: 'required' } }, () => ({
    content: [{ type: 'text', text: 'ran' }],
  }));
  server.tool({ name: 'asks', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}!` }] };
  });
  server.tool(
    { name: 'deferred', execution: { taskSupport: 'optional' }, deferTask: true },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Which?',
        requestedSchema: { type: 'object', properties: {} },
      });
      const isTask = await ctx.startTask();
      await fixture.gate.promise;
      return { content: [{ type: 'text', text: `${answer.action} as ${isTask ? 'a task' : 'a call'}` }] };
    },
  );
  server.tool({ name: 'plain' }, () => ({ content: [{ type: 'text', text: 'plain' }] }));
  let handler: StreamableHTTPHandler | undefined;
  const served: Served = await serveOn((req, res) => handler!.node()(req, res));
  const resource = new ProtectedResource({
    resource: served.url,
    authorizationServers: ['https://auth.example.com'],
    verifier: { verify: (token) => TASK_TOKENS[token] },
  });
  handler = new StreamableHTTPHandler(server, {
    ...(options.anonymous ? {} : { auth: resource }),
    onerror: (e) => errors.push(e),
  });
  const h = handler;
  return Object.assign(fixture, {
    url: served.url,
    server,
    store,
    handler: h,
    errors,
    async close() {
      await h.close({ deadlineMs: 0 });
      await store.close();
      await served.close();
    },
  });
}
