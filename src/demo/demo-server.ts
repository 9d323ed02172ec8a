import { Server, type ToolHandle } from '../server/server.js';
import type { ServerOptions } from '../server/server-options.js';
import { MemoryTaskStore } from '../tasks/memory-task-store.js';
import { addCounterApp } from './demo-app.js';

const NAMES = ['Ada', 'Alan', 'Barbara', 'Dennis', 'Edsger', 'Grace', 'Ken', 'Linus', 'Margaret', 'Radia'];

const README = `# mcpwire demo

This server shows every MCP feature mcpwire implements:
- tools: echo, add, long_running (progress), countdown (a task: poll it, answer it, cancel it), sample
  (sampling), list_roots (roots), elicit_name (elicitation), toggle_tool (adds or removes the tool bonus: the tool list changes), touch_readme (demo://readme is updated), counter (an MCP App: a view a host renders; counter_increment is
  for the view, counter_reset for the model)
- resources: demo://readme, ui://demo/counter (the counter's view), and the template demo://items/{id}
- prompts: greet {name}, with completion for name
- logging: each tool call logs at info level; use logging/setLevel to filter
`;

/**
 * The demo server a user learns from: one tool per feature, a resource, a template, a prompt with
 * completion, and log messages. `mcpwire serve` serves it; `mcpwire/demo` exports it, a ready peer to try a
 * client against.
 */
export function createDemoServer(
  options: Pick<ServerOptions, 'requestStateKeys' | 'logger' | 'telemetry' | 'onerror' | 'tasks'> = {},
): Server {
  const server = new Server(
    { name: 'mcpwire-demo', title: 'mcpwire demo server', version: '0.1.0' },
    {
      ...options,
      // Tasks kept in this process unless the caller gives a shared store.
      tasks: options.tasks ?? { store: new MemoryTaskStore() },
      instructions:
        'A demonstration server: call echo or add, run long_running to see progress, countdown to see a task, try sample, list_roots and elicit_name to see the server call back to the client, toggle_tool or touch_readme to see a tool list change or a resource update, and counter to see an MCP App.',
    },
  );

  server.tool(
    {
      name: 'echo',
      title: 'Echo',
      description: 'Returns the message it is given.',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'Text to echo back' } },
        required: ['message'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, ctx) => {
      await ctx.log('info', `echo called with ${JSON.stringify(args.message)}`, 'demo');
      return { content: [{ type: 'text', text: `Echo: ${args.message}` }] };
    },
  );

  server.tool(
    {
      name: 'add',
      title: 'Add',
      description: 'Adds two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => {
      const sum = (args.a as number) + (args.b as number);
      return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
    },
  );

  server.tool(
    {
      name: 'long_running',
      title: 'Long-running operation',
      description: 'Runs for `duration` seconds in `steps` steps, reporting progress after each step.',
      inputSchema: {
        type: 'object',
        properties: {
          duration: { type: 'number', minimum: 0, maximum: 3600, default: 5, description: 'Seconds' },
          steps: { type: 'integer', minimum: 1, maximum: 1000, default: 5 },
        },
      },
    },
    async (args, ctx) => {
      const duration = (args.duration as number | undefined) ?? 5;
      const steps = (args.steps as number | undefined) ?? 5;
      const stepMs = (duration * 1000) / steps;
      for (let step = 1; step <= steps; step++) {
        await sleep(stepMs, ctx.signal);
        await ctx.sendProgress(step, steps, `step ${step} of ${steps}`);
      }
      await ctx.log('info', `long_running finished ${steps} steps in ${duration} s`, 'demo');
      return {
        content: [
          { type: 'text', text: `Long-running operation completed: ${steps} steps in ${duration} s` },
        ],
      };
    },
  );

  server.tool(
    {
      name: 'countdown',
      title: 'Countdown',
      description:
        'Counts down from `from`, one a second, reporting progress; with `ask`, asks halfway whether to go on. May run as a task (a client that declares tasks gets a task id to poll, answer and cancel).',
      inputSchema: {
        type: 'object',
        properties: {
          from: { type: 'integer', minimum: 1, maximum: 3600, default: 10 },
          ask: { type: 'boolean', default: false, description: 'Ask halfway whether to go on' },
        },
      },
      execution: { taskSupport: 'optional' },
    },
    async (args, ctx) => {
      const from = (args.from as number | undefined) ?? 10;
      for (let left = from; left > 0; left--) {
        if (args.ask === true && left === Math.ceil(from / 2)) {
          const answer = await ctx.elicit({
            message: `${left} to go: keep counting?`,
            requestedSchema: { type: 'object', properties: { go: { type: 'boolean', default: true } } },
          });
          if (answer.action !== 'accept' || answer.content?.go === false) {
            return { content: [{ type: 'text', text: `Stopped at ${left}, as asked` }] };
          }
        }
        await ctx.sendProgress(from - left, from, `${left} left`);
        await sleep(1000, ctx.signal);
      }
      return { content: [{ type: 'text', text: `Liftoff after ${from} s` }] };
    },
  );

  server.tool(
    {
      name: 'sample',
      title: 'Sample the client LLM',
      description: "Asks the client's LLM to answer a prompt (sampling) and returns its text.",
      inputSchema: {
        type: 'object',
        properties: { prompt: { type: 'string' }, maxTokens: { type: 'integer', minimum: 1, default: 100 } },
        required: ['prompt'],
      },
    },
    async (args, ctx) => {
      const reply = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: args.prompt as string } }],
        maxTokens: (args.maxTokens as number | undefined) ?? 100,
      });
      const content = Array.isArray(reply.content) ? reply.content : [reply.content];
      const text = content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
      return { content: [{ type: 'text', text }] };
    },
  );

  server.tool(
    {
      name: 'list_roots',
      title: 'List client roots',
      description: 'Asks the client for its roots and returns their URIs.',
      outputSchema: {
        type: 'object',
        properties: { roots: { type: 'array', items: { type: 'string' } } },
        required: ['roots'],
      },
      annotations: { readOnlyHint: true },
    },
    async (_args, ctx) => {
      const { roots } = await ctx.listRoots();
      const uris = roots.map((r) => r.uri);
      return {
        content: [{ type: 'text', text: uris.length === 0 ? 'No roots' : uris.join('\n') }],
        structuredContent: { roots: uris },
      };
    },
  );

  server.tool(
    {
      name: 'elicit_name',
      title: 'Ask for a name',
      description: 'Asks the user for their name through elicitation and returns it.',
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        mode: 'form',
        message: 'What is your name?',
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name', minLength: 1 } },
          required: ['name'],
        },
      });
      if (answer.action !== 'accept')
        return { content: [{ type: 'text', text: `The user chose to ${answer.action}` }] };
      return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name)}` }] };
    },
  );

  // One bonus tool for every caller: toggling it is a change of the server's list, which every client sees.
  let bonus: ToolHandle | undefined;
  server.tool(
    {
      name: 'toggle_tool',
      title: 'Toggle the bonus tool',
      description:
        'Adds the tool `bonus` when it is absent and removes it when present, so the tool list changes.',
      annotations: { idempotentHint: false, openWorldHint: false },
    },
    () => {
      if (bonus !== undefined) {
        bonus.remove();
        bonus = undefined;
        return { content: [{ type: 'text', text: 'Removed the tool bonus' }] };
      }
      bonus = server.tool(
        {
          name: 'bonus',
          title: 'Bonus',
          description: 'Exists only between two calls of toggle_tool.',
          annotations: { readOnlyHint: true, openWorldHint: false },
        },
        () => ({ content: [{ type: 'text', text: 'You found the bonus tool' }] }),
      );
      return { content: [{ type: 'text', text: 'Added the tool bonus' }] };
    },
  );

  server.tool(
    {
      name: 'touch_readme',
      title: 'Touch the readme',
      description: 'Tells the clients subscribed to demo://readme that it was updated.',
      annotations: { openWorldHint: false },
    },
    () => {
      server.resourceUpdated('demo://readme');
      return { content: [{ type: 'text', text: 'Sent an update of demo://readme to its subscribers' }] };
    },
  );

  server.resource(
    { uri: 'demo://readme', name: 'readme', title: 'About this server', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri, mimeType: 'text/markdown', text: README }] }),
  );

  server.resourceTemplate(
    { uriTemplate: 'demo://items/{id}', name: 'item', title: 'Demo item', mimeType: 'text/plain' },
    {
      read: (uri, vars) => ({
        contents: [{ uri, mimeType: 'text/plain', text: `This is demo item ${String(vars.id)}.` }],
      }),
      complete: { id: (value) => ['1', '2', '3', '42'].filter((id) => id.startsWith(value)) },
    },
  );

  server.prompt(
    {
      name: 'greet',
      title: 'Greet someone',
      description: 'A prompt that asks the model to greet a person by name.',
      arguments: [
        {
          name: 'name',
          description: 'Who to greet',
          required: true,
          complete: (value) => NAMES.filter((n) => n.toLowerCase().startsWith(value.toLowerCase())),
        },
      ],
    },
    (args) => ({
      description: `Greeting for ${args.name}`,
      messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${args.name} warmly.` } }],
    }),
  );

  addCounterApp(server);
  return server;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
