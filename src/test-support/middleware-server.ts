// A server with middleware of each kind, for the middleware tests: in this process, or on stdio when run as
// `node --import tsx middleware-server.ts --stdio`.
//   Middleware, outermost first: records each request in `seen` and tags a content result "[outer]"; refuses
//   the tool `secret` (-32600), throws for `broken-guard`, tags "[inner]"; answers the unregistered tool `cached`
//   in place (beforeToolCall); adds "(after)" to `hello`'s result (afterToolCall).
//   Tools: hello {name}, secret, broken-guard, ask (elicits a name).
import { McpError } from '../jsonrpc/errors.js';
import type { CallToolResult, Result } from '../protocol/types.js';
import { afterToolCall, beforeToolCall, type MiddlewareAnswer } from '../server/middleware.js';
import { Server } from '../server/server.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

/** `answer` with a text block `[name]` after its content, when it is a result with content. */
function tagged(answer: MiddlewareAnswer, name: string): MiddlewareAnswer {
  const content = (answer as Result).content;
  if (!Array.isArray(content)) return answer;
  return { ...answer, content: [...content, { type: 'text', text: `[${name}]` }] } as Result;
}

export function middlewareServer(seen: string[] = [], onerror?: (err: Error) => void): Server {
  const server = new Server({ name: 'middleware', version: '1.0.0' }, { onerror });
  const empty = { type: 'object' as const, properties: {} };
  server.tool(
    { name: 'hello', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    (args) => text(`hello ${String(args.name ?? 'you')}`),
  );
  server.tool({ name: 'secret', inputSchema: empty }, () => text('the secret'));
  server.tool({ name: 'broken-guard', inputSchema: empty }, () => text('unreachable'));
  server.tool({ name: 'ask', inputSchema: empty }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return text(`hi ${String(answer.content?.name)}`);
  });
  server.use(async (call, next) => {
    seen.push(`> ${call.method} ${call.target ?? '-'} ${call.ctx.scope.era}`);
    const answer = await next();
    seen.push(`< ${call.method}`);
    return tagged(answer, 'outer');
  });
  server.use(async (call, next) => {
    if (call.target === 'secret') throw new McpError(-32600, 'secret is not for this caller');
    if (call.target === 'broken-guard') throw new Error('the guard broke');
    return tagged(await next(), 'inner');
  });
  server.use(beforeToolCall((call) => (call.target === 'cached' ? text('from the cache') : undefined)));
  server.use(
    afterToolCall((call, result) =>
      call.target === 'hello'
        ? { ...result, content: [...result.content, { type: 'text', text: '(after)' }] }
        : undefined,
    ),
  );
  return server;
}

if (process.argv.includes('--stdio')) serveStdio(middlewareServer());
