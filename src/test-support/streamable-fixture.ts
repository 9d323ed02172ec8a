import type { StreamableHTTPOptions } from '../server/http/handler-options.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { Server } from '../server/server.js';
import { type Served, serveOn } from './mcp-http.js';

/** Promises a test releases by hand, by name. */
export class Gates {
  private readonly gates = new Map<string, { promise: Promise<void>; open: () => void }>();

  wait(name: string): Promise<void> {
    return this.gate(name).promise;
  }

  open(name: string): void {
    this.gate(name).open();
  }

  private gate(name: string) {
    let g = this.gates.get(name);
    if (g === undefined) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      g = { promise, open };
      this.gates.set(name, g);
    }
    return g;
  }
}

/**
 * A server for transport tests: `echo`; `burst` (sends `count` log notifications, yielding every
 * `every` of them, then answers); `wait` (answers once gate `gate` opens, logging first); `ask`
 * (samples the client); `poll` (closes its POST stream early, then answers once gate `gate` opens).
 */
export function createTestServer(gates = new Gates()): Server {
  const server = new Server({ name: 'streamable-test', version: '1.0.0' });
  server.tool(
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  );
  server.tool(
    {
      name: 'burst',
      inputSchema: { type: 'object', properties: { count: { type: 'integer' }, every: { type: 'integer' } } },
    },
    async (args, ctx) => {
      const count = (args.count as number | undefined) ?? 10;
      const every = (args.every as number | undefined) ?? 0;
      for (let i = 0; i < count; i++) {
        await ctx.notify('notifications/message', { level: 'info', data: i });
        if (every > 0 && (i + 1) % every === 0) await new Promise((r) => setImmediate(r));
      }
      return { content: [{ type: 'text', text: `sent ${count}` }] };
    },
  );
  server.tool(
    { name: 'wait', inputSchema: { type: 'object', properties: { gate: { type: 'string' } } } },
    async (args, ctx) => {
      await ctx.log('info', `waiting for ${String(args.gate)}`);
      await gates.wait(String(args.gate));
      return { content: [{ type: 'text', text: `opened ${String(args.gate)}` }] };
    },
  );
  server.tool({ name: 'ask', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const reply = await ctx.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello?' } }],
      maxTokens: 10,
    });
    const content = reply.content as { type: string; text?: string };
    return { content: [{ type: 'text', text: `sampled: ${content.text}` }] };
  });
  server.tool(
    { name: 'poll', inputSchema: { type: 'object', properties: { gate: { type: 'string' } } } },
    async (args, ctx) => {
      await ctx.log('info', 'before close');
      ctx.transport?.closeStream?.();
      await ctx.log('info', 'after close');
      await gates.wait(String(args.gate));
      return { content: [{ type: 'text', text: 'polled' }] };
    },
  );
  return server;
}

/** A test server behind a StreamableHTTPHandler with `options`, served on 127.0.0.1; its gates with it. */
export async function serveTestServer(options: StreamableHTTPOptions = {}): Promise<{
  gates: Gates;
  server: Server;
  handler: StreamableHTTPHandler;
  served: Served;
}> {
  const gates = new Gates();
  const server = createTestServer(gates);
  const handler = new StreamableHTTPHandler(server, options);
  return { gates, server, handler, served: await serveOn(handler.node()) };
}
