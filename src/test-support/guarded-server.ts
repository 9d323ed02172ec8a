// A server whose entries are not all for everyone, for the authorization tests: in this process, or on stdio
// (where every caller is anonymous) when run as `node --import tsx guarded-server.ts --stdio`.
//   For everyone: tool `echo`, resource `note://public`, prompt `hello`.
//   Scope `admin`: tool `wipe`, resource `note://secret`, prompt `review` (its argument `file` completes).
//   Principal "ada" only: tool `diary`, template `diary://{day}`.
// Lists are announced as publicly cacheable, which guarded lists must not be.
import type { Caller } from '../server/access.js';
import { Server } from '../server/server.js';
import { serveStdio } from '../server/stdio/serve-stdio.js';

const ADMIN = { scopes: ['admin'] };
const ADA = { allow: (caller: Caller) => caller.principal === 'ada' };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

export function guardedServer(): Server {
  const server = new Server(
    { name: 'guarded', version: '1.0.0' },
    { cacheHints: { ttlMs: 60_000, cacheScope: 'public' } },
  );
  server.tool({ name: 'echo' }, (args) => text(`echo ${String(args.message ?? '')}`));
  server.tool({ name: 'wipe', access: ADMIN }, () => text('wiped'));
  server.tool({ name: 'diary', access: ADA }, (_args, ctx) =>
    text(`dear diary, from ${ctx.transport?.principal}`),
  );
  server.resource({ uri: 'note://public', name: 'public' }, (uri) => ({
    contents: [{ uri, text: 'for all' }],
  }));
  server.resource({ uri: 'note://secret', name: 'secret', access: ADMIN }, (uri) => ({
    contents: [{ uri, text: 'for admins' }],
  }));
  server.resourceTemplate(
    { uriTemplate: 'diary://{day}', name: 'diary page', access: ADA },
    { read: (uri, { day }) => ({ contents: [{ uri, text: `page of ${String(day)}` }] }) },
  );
  server.prompt({ name: 'hello' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
  }));
  server.prompt(
    {
      name: 'review',
      access: ADMIN,
      arguments: [{ name: 'file', required: true, complete: (value) => [`${value}.ts`] }],
    },
    ({ file }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `review ${file}` } }] }),
  );
  return server;
}

if (process.argv.includes('--stdio')) serveStdio(guardedServer());
