// The bridge serving @modelcontextprotocol/server-filesystem, the official file server, over stdio. It takes the
// folders it may touch from its command line, or from its client's roots, which replace them. One process shared
// by every client keeps its command line's folder (no client's roots reach it: its request for them at start has
// no client to go to); with `isolate`, each 2025 session's process works in that session's roots alone, and
// follows them when they change.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, type ClientSession, connectUrl } from '../../src/client/index.js';
import type { Root } from '../../src/protocol/types.js';
import { serveBridge } from '../../src/test-support/served-bridge.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
const FILESYSTEM = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);

// Real paths: the server resolves symlinks (a temporary folder may be one) before comparing.
const top = realpathSync(mkdtempSync(join(tmpdir(), 'mcpwire-fs-')));
const folders = { shared: join(top, 'shared'), alpha: join(top, 'alpha'), beta: join(top, 'beta') };
for (const [name, folder] of Object.entries(folders)) {
  mkdirSync(folder);
  writeFileSync(join(folder, 'note.txt'), `the ${name} note`);
}
after(() => rmSync(top, { recursive: true, force: true }));

const rootOf = (folder: string): Root => ({ uri: pathToFileURL(folder).href });
const upstream = { command: { command: process.execPath, args: [FILESYSTEM, folders.shared] } };

function connect(url: string, era: 'legacy' | 'modern', roots: Root[]): Promise<ClientSession> {
  return within(connectUrl(new Client({ name: 'c', version: '1' }, { era, roots }), url), MS, 'connect');
}
const allowed = async (session: ClientSession) =>
  toolText(await session.callTool('list_allowed_directories'));
const read = async (session: ClientSession, folder: string) => {
  const result = await session.callTool('read_text_file', { path: join(folder, 'note.txt') });
  return { text: toolText(result), isError: result.isError === true };
};

describe('server-filesystem, one process shared by every client', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({ upstream, stderr: () => {}, report: () => {} }));
  });

  after(() => close?.());

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} client: reads in the command line's folder, not in its own roots`, async () => {
      const session = await connect(url, era, [rootOf(folders.alpha)]);
      try {
        assert.match(await allowed(session), new RegExp(`Allowed directories:\\n${folders.shared}$`));
        assert.deepEqual(await read(session, folders.shared), { text: 'the shared note', isError: false });
        const refused = await read(session, folders.alpha);
        assert.equal(refused.isError, true);
        assert.match(refused.text, /Access denied - path outside allowed directories/);
      } finally {
        await session.close();
      }
    });
  }

  test('the official SDK v1 client reads through the bridge', async () => {
    const sdk = new SdkClient({ name: 'sdk', version: '1' });
    await within(sdk.connect(new StreamableHTTPClientTransport(new URL(url))), MS, 'sdk connect');
    try {
      const result = await sdk.callTool({
        name: 'read_text_file',
        arguments: { path: join(folders.shared, 'note.txt') },
      });
      assert.deepEqual(result.content, [{ type: 'text', text: 'the shared note' }]);
    } finally {
      await sdk.close();
    }
  });
});

describe('server-filesystem with isolate: a process per 2025 session, in its roots', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({ upstream, isolate: true, stderr: () => {}, report: () => {} }));
  });

  after(() => close?.());

  test("each session's process works in that session's roots alone, and follows them when they change", async () => {
    const [a, b] = await Promise.all([
      connect(url, 'legacy', [rootOf(folders.alpha)]),
      connect(url, 'legacy', [rootOf(folders.beta)]),
    ]);
    try {
      // Each process asks its session for roots once its handshake is done, and takes them in its own time.
      await until(async () => (await allowed(a)).endsWith(`\n${folders.alpha}`), MS, "a's roots");
      await until(async () => (await allowed(b)).endsWith(`\n${folders.beta}`), MS, "b's roots");
      assert.deepEqual(await read(a, folders.alpha), { text: 'the alpha note', isError: false });
      assert.deepEqual(await read(b, folders.beta), { text: 'the beta note', isError: false });
      for (const [session, other] of [
        [a, folders.beta],
        [b, folders.alpha],
        [a, folders.shared],
      ] as const) {
        assert.equal((await read(session, other)).isError, true, `${other} is out of the session's roots`);
      }
      // A's roots change: its process hears of it and asks again; b's is untouched.
      await a.setRoots([rootOf(folders.shared)]);
      await until(async () => (await allowed(a)).endsWith(`\n${folders.shared}`), MS, "a's new roots");
      assert.deepEqual(await read(a, folders.shared), { text: 'the shared note', isError: false });
      assert.equal((await read(a, folders.alpha)).isError, true);
      assert.deepEqual(await read(b, folders.beta), { text: 'the beta note', isError: false });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
