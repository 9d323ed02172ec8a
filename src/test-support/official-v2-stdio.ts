// The official-v2 fixture (see official-v2-server.ts) over stdio through the SDK's own `serveStdio`, which
// picks the era from the connection's first message. Run: `node --import tsx src/test-support/official-v2-stdio.ts`;
// `--reject-legacy` makes it modern-only (an `initialize` gets -32022 naming the supported revisions).
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { buildOfficialV2Server, instanceNotifier } from './official-v2-server.js';

serveStdio(() => buildOfficialV2Server(instanceNotifier), {
  legacy: process.argv.includes('--reject-legacy') ? 'reject' : 'serve',
  onerror: (error) => process.stderr.write(`official-v2-stdio: ${error.message}\n`),
});
