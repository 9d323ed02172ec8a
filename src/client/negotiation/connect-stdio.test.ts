// connectStdio: the probe over stdio, and what it does for a legacy server that exits on `server/discover`
// (some do, rather than answering an unknown pre-initialize request with an error).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { handWrittenServer } from '../../test-support/hand-written-server.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import { connectStdio } from './connect-stdio.js';

/**
 * A legacy stdio server written by hand: it exits at once on any first request but initialize, answers
 * initialize with 2025-11-25 and ping with {}, and appends each start to its log (to count the spawns).
 */
const LEGACY_SERVER = handWrittenServer(
  `if (!initialized && m.method !== 'initialize') process.exit(3);
    initialized = true;
    answer(m, { result: m.method === 'initialize'
      ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'picky', version: '1' } }
      : {} });`,
  `require('node:fs').appendFileSync(process.argv[2], 'start\\n');
let initialized = false;`,
);

let dir: string;
let script: string;
let log: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpwire-connect-stdio-'));
  script = join(dir, 'picky-server.cjs');
  log = join(dir, 'starts.log');
  writeFileSync(script, LEGACY_SERVER);
  writeFileSync(log, '');
});

after(() => rmSync(dir, { recursive: true, force: true }));

function starts(): number {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
}

test('a legacy server that exits on server/discover is started again and spoken to with initialize; the next connect skips the probe', async () => {
  const client = new Client({ name: 'connect-stdio-test', version: '1' }, { requestTimeoutMs: 10_000 });
  const command = { command: process.execPath, args: [script, log] };
  const first = await within(connectStdio(client, command), 15_000, 'the first connect');
  try {
    assert.equal(first.era, 'legacy');
    assert.equal(first.serverInfo.name, 'picky');
    await first.ping();
    assert.equal(starts(), 2, 'the probe killed the first start; the second was spoken to with initialize');
  } finally {
    await first.close();
  }
  const second = await within(connectStdio(client, command), 15_000, 'the second connect');
  try {
    assert.equal(second.era, 'legacy');
    assert.equal(starts(), 3, 'one start only: the verdict of the first connect skipped the probe');
  } finally {
    await second.close();
  }
});

/** A modern-only stdio server: answers server/discover, refuses initialize with -32022 naming what it serves. */
const MODERN_SERVER = handWrittenServer(
  `answer(m, m.method === 'server/discover'
      ? { result: { supportedVersions: ['2026-07-28'], capabilities: {}, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'upgraded', version: '2' } } } }
      : { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } });`,
);

test('a remembered verdict that proves wrong (the command now starts a modern-only server) is dropped, and the server probed afresh', async () => {
  const client = new Client({ name: 'connect-stdio-test', version: '1' }, { requestTimeoutMs: 10_000 });
  const path = join(dir, 'changing-server.cjs');
  writeFileSync(path, LEGACY_SERVER);
  const command = { command: process.execPath, args: [path, log] };
  await (await within(connectStdio(client, command), 15_000, 'the legacy connect')).close();
  writeFileSync(path, MODERN_SERVER);
  const session = await within(connectStdio(client, command), 15_000, 'the connect after the upgrade');
  try {
    assert.equal(session.era, 'modern');
    assert.equal(session.serverInfo.name, 'upgraded');
  } finally {
    await session.close();
  }
});

test("a client that speaks only the modern era gets the server's end as the error, with no second start", async () => {
  writeFileSync(log, '');
  const client = new Client(
    { name: 'connect-stdio-test', version: '1' },
    { era: 'modern', requestTimeoutMs: 10_000 },
  );
  await assert.rejects(
    within(
      connectStdio(client, { command: process.execPath, args: [script, log, 'modern'] }),
      15_000,
      'connect',
    ),
    /exit|closed/i,
  );
  assert.equal(starts(), 1);
});

test('a modern-only server slow to start (silent for longer than probeTimeoutMs) is spoken to in the modern era', async () => {
  const client = new Client(
    { name: 'connect-stdio-test', version: '1' },
    { requestTimeoutMs: 10_000, probeTimeoutMs: 200 },
  );
  const path = join(dir, 'slow-modern-server.cjs');
  // It reads nothing for 1.5 s (a package being fetched, say), then serves what waited in its pipe.
  writeFileSync(path, `setTimeout(() => {${MODERN_SERVER}}, 1500);`);
  const session = await within(
    connectStdio(client, { command: process.execPath, args: [path] }),
    15_000,
    'connect',
  );
  try {
    assert.equal(session.era, 'modern');
    assert.equal(session.serverInfo.name, 'upgraded');
  } finally {
    await session.close();
  }
});
