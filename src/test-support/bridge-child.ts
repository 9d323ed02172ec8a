// A stdio MCP server for the bridge's fault tests: `node --import tsx bridge-child.ts [flags]`.
//   --hang           never answers anything (a child stuck before its handshake)
//   --once FILE      serves only if FILE does not exist yet (and creates it): started again, it exits at once (4)
//   --legacy         speaks only the 2025 era (a ServerSession on stdio), as most stdio servers do
//   --hold-while FILE  reads nothing while FILE exists, saying so on stderr (a child slow to start)
//   tools: pid (its process id), crash (a line on stderr, then exit 3), wait {ms} (says on stderr when it begins
//   and when it is cancelled), garbage (a line that is not JSON-RPC on stdout, then its answer), ask (elicits a
//   name from the client; what went wrong said on stderr), log (a warning to its client); prompt `project`, whose
//   argument `root` is completed with the client's roots (asked during completion/complete), or with what went wrong;
//   resource note://counter (subscribable), which the tool bump {by} updates; ask-in-steps (progress 1 of 3, asks
//   the client for a name, progress 3 once answered) and nudge (progress 2 of the ask-in-steps in flight, then answers)
import { existsSync, writeFileSync } from 'node:fs';
import type { ServerContext } from '../server/context.js';
import { Server } from '../server/server.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';
import { stdioServerConnection } from '../server/stdio/stdio-server-connection.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

const once = process.argv.indexOf('--once');
const marker = once < 0 ? undefined : process.argv[once + 1];
if (marker !== undefined && existsSync(marker)) {
  process.stderr.write('started before: exiting at once\n');
  process.exit(4);
}
if (marker !== undefined) writeFileSync(marker, String(process.pid));

const hold = process.argv.indexOf('--hold-while');
if (hold >= 0 && existsSync(process.argv[hold + 1])) {
  process.stderr.write('held\n');
  while (existsSync(process.argv[hold + 1])) await new Promise((resolve) => setTimeout(resolve, 20));
}

if (process.argv.includes('--hang')) {
  // Reads and ignores: the handshake never gets an answer.
  process.stdin.resume();
} else {
  const server = new Server({ name: 'bridge-child', version: '1.0.0' });
  server.tool({ name: 'pid', description: 'This process id.' }, () => text(String(process.pid)));
  server.tool({ name: 'crash', description: 'Exits with code 3 after a line on stderr.' }, () => {
    process.stderr.write('about to crash on purpose\n');
    process.exit(3);
  });
  server.tool(
    {
      name: 'wait',
      description: 'Answers after ms milliseconds, or never once cancelled.',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    },
    async (args, ctx) => {
      process.stderr.write(`waiting request ${JSON.stringify(ctx.requestId)}\n`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms as number);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          process.stderr.write(`cancelled request ${JSON.stringify(ctx.requestId)}\n`);
          reject(ctx.signal.reason);
        });
      });
      return text('waited');
    },
  );
  server.tool({ name: 'garbage', description: 'Writes a line that is not JSON-RPC, then answers.' }, () => {
    process.stdout.write('this line is not JSON-RPC\n');
    return text('still here');
  });
  server.tool(
    { name: 'log', description: 'Logs a warning to its client, then answers.' },
    async (_args, ctx) => {
      await ctx.log('warning', { said: 'from the child' }, 'bridge-child');
      return text('logged');
    },
  );
  server.tool({ name: 'ask', description: 'Asks the client for a name.' }, async (_args, ctx) => {
    try {
      const answer = await ctx.elicit({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return text(`hello ${String(answer.content?.name)}`);
    } catch (err) {
      process.stderr.write(`elicitation failed: ${(err as Error).message}\n`);
      return { ...text(`no name: ${(err as Error).message}`), isError: true };
    }
  });
  let asking: ServerContext | undefined;
  server.tool(
    { name: 'ask-in-steps', description: 'Progress 1 of 3, a name asked of the client, then progress 3.' },
    async (_args, ctx) => {
      await ctx.sendProgress(1, 3);
      asking = ctx;
      try {
        const answer = await ctx.elicit({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        await ctx.sendProgress(3, 3);
        return text(`hello ${String(answer.content?.name)}`);
      } finally {
        asking = undefined;
      }
    },
  );
  server.tool({ name: 'nudge', description: 'Progress 2 of the ask-in-steps in flight.' }, async () => {
    if (asking === undefined) return { ...text('no ask-in-steps in flight'), isError: true };
    await asking.sendProgress(2, 3);
    return text('nudged');
  });
  let counter = 0;
  server.resource({ uri: 'note://counter', name: 'counter' }, (uri) => ({
    contents: [{ uri, text: String(counter) }],
  }));
  server.tool({ name: 'bump', description: 'Adds 1 to note://counter, which is updated.' }, () => {
    counter++;
    server.resourceUpdated('note://counter');
    return text(String(counter));
  });
  server.prompt(
    {
      name: 'project',
      arguments: [{ name: 'root' }],
      complete: {
        root: async (_value, _context, ctx) => {
          try {
            return (await ctx.listRoots()).roots.map((root) => root.uri);
          } catch (err) {
            return [`no roots: ${(err as Error).message}`];
          }
        },
      },
    },
    (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `work in ${args.root}` } }] }),
  );
  if (process.argv.includes('--legacy')) server.connect(stdioServerConnection());
  else serveStdio(server);
}
