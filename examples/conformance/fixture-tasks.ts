import { setTimeout as sleep } from 'node:timers/promises';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { ContentBlock, ElicitResult } from '../../src/protocol/types.js';
import { inputRequired, type Server, type ServerContext } from '../../src/server/index.js';

/**
 * Registers on `server` (made with `tasks`) the tools the `tasks-*` scenarios of the conformance suite
 * 0.2.0-alpha.12 call (the Tasks extension, SEP-2663; examples/conformance/FIXTURE-2026.md): `greet` never runs
 * as a task; `slow_compute`, `protocol_error_job`, `confirm_delete` and `multi_input` may; `failing_job` and
 * `test_tool_with_task` must (the latter after a multi-round-trip round, through `ctx.startTask`).
 */
export function registerTaskTools(server: Server): void {
  const text = (t: string, isError?: boolean) => ({
    content: [{ type: 'text', text: t }] as ContentBlock[],
    ...(isError ? { isError } : {}),
  });
  const may = { taskSupport: 'optional' } as const;
  const must = { taskSupport: 'required' } as const;
  const ask = (ctx: ServerContext, message: string): Promise<ElicitResult> =>
    ctx.elicit({
      message,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
    });

  server.tool(
    {
      name: 'greet',
      description: 'Greets; never runs as a task.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    (args) => text(`Hello, ${String(args.name)}!`),
  );

  server.tool(
    {
      name: 'slow_compute',
      description: 'Sleeps `seconds` (stopped by tasks/cancel), then answers; may run as a task.',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
      },
      execution: may,
    },
    async (args, ctx) => {
      const seconds = typeof args.seconds === 'number' ? args.seconds : 1;
      await sleep(seconds * 1000, undefined, { signal: ctx.signal }).catch(() => undefined);
      return text(`Computed ${String(args.label ?? 'result')} after ${seconds}s`);
    },
  );

  server.tool(
    {
      name: 'failing_job',
      description: 'Fails as a tool (isError) after a moment; runs only as a task.',
      execution: must,
    },
    async () => {
      await sleep(100);
      return text('The job failed: the input was rejected', true);
    },
  );

  server.tool(
    {
      name: 'protocol_error_job',
      description: 'Fails with a JSON-RPC error; may run as a task.',
      execution: may,
    },
    async () => {
      await sleep(50);
      throw new McpError(-32603, 'The job crashed: an internal error');
    },
  );

  server.tool(
    {
      name: 'confirm_delete',
      description: 'Asks to confirm deleting `filename`, then answers; may run as a task.',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
      execution: may,
    },
    async (args, ctx) => {
      const answer = await ask(ctx, `Delete ${String(args.filename)}?`);
      return text(answer.action === 'accept' ? `Deleted ${String(args.filename)}` : 'Kept it');
    },
  );

  server.tool(
    { name: 'multi_input', description: 'Asks two questions at once; may run as a task.', execution: may },
    async (_args, ctx) => {
      const [first, second] = await Promise.all([ask(ctx, 'First?'), ask(ctx, 'Second?')]);
      return text(`Answers: ${first.action}, ${second.action}`);
    },
  );

  server.tool(
    {
      name: 'test_tool_with_task',
      description:
        'Asks for a name (key user_name) in a multi-round-trip round, then runs as a task and greets it.',
      execution: must,
      deferTask: true,
    },
    async (_args, ctx) => {
      const answer = ctx.inputResponses?.user_name as ElicitResult | undefined;
      const name = answer?.action === 'accept' ? answer.content?.name : undefined;
      if (typeof name !== 'string') {
        return inputRequired({
          inputRequests: {
            user_name: {
              method: 'elicitation/create',
              params: {
                message: 'What is your name?',
                requestedSchema: {
                  type: 'object',
                  properties: { name: { type: 'string' } },
                  required: ['name'],
                },
              },
            },
          },
        });
      }
      await ctx.startTask();
      await sleep(100, undefined, { signal: ctx.signal }).catch(() => undefined);
      return text(`Hello, ${name}!`);
    },
  );
}
