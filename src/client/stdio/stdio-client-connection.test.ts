import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import { recordingReceiver } from '../../test-support/recording-receiver.js';
import { StdioProcessError, spawnStdio } from './stdio-client-connection.js';

/** Writes every line it reads back; exits when stdin ends. */
const ECHO = `require('readline').createInterface({ input: process.stdin })
  .on('line', (l) => process.stdout.write(l + '\\n'));`;

/** Ignores stdin's end and SIGTERM; says it is ready once the handler is in place. */
const STUBBORN = `process.on('SIGTERM', () => {});
process.stdin.resume();
setInterval(() => {}, 1000);
process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');`;

const node = (script: string, extra: object = {}) =>
  spawnStdio({ command: process.execPath, args: ['-e', script], ...extra });

/** Past it close sends SIGTERM: a bound no busy machine reaches, so that a close within it needed no signal. */
const GRACE_MS = 20_000;

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('spawnStdio', { timeout: 20000 }, () => {
  test('round-trips messages in order with the child and closes gracefully', async () => {
    const conn = node(ECHO, { closeGraceMs: GRACE_MS });
    const r = recordingReceiver();
    conn.start(r);
    assert.equal(typeof conn.pid, 'number');
    for (let n = 0; n < 50; n++) await conn.send(note(n));
    await r.until(() => r.messages.length === 50);
    assert.deepEqual(r.messages, [...Array(50).keys()].map(note));
    const started = Date.now();
    await conn.close();
    assert.ok(Date.now() - started < GRACE_MS, 'the child exits on stdin end, no signal needed');
    assert.deepEqual(r.closes, [undefined]);
    assert.equal(isAlive(conn.pid!), false);
    await assert.rejects(conn.send(note(1)), /closed/);
  });

  test('close escalates to SIGKILL for a child that ignores stdin end and SIGTERM', async () => {
    const conn = node(STUBBORN, { closeGraceMs: 100 });
    const r = recordingReceiver();
    conn.start(r);
    await r.until(() => r.messages.length === 1);
    const started = Date.now();
    await conn.close();
    const took = Date.now() - started;
    assert.ok(took >= 200 && took < 3000, `took ${took} ms`);
    assert.equal(isAlive(conn.pid!), false);
    assert.deepEqual(r.closes, [undefined]);
  });

  test('a child that exits on its own closes with its exit code and stderr tail', async () => {
    const script = `for (let i = 0; i < 100; i++) console.error('log line ' + i);
      console.error('fatal: no config'); process.exit(3);`;
    const chunks: string[] = [];
    const conn = node(script, { onStderr: (c: string) => chunks.push(c) });
    const r = recordingReceiver();
    conn.start(r);
    await r.until(() => r.closes.length > 0);
    const err = r.closes[0];
    assert.ok(err instanceof StdioProcessError);
    assert.equal(err.exitCode, 3);
    assert.match(err.message, /code 3/);
    assert.match(err.message, new RegExp(process.execPath.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')));
    assert.match(err.message, /fatal: no config$/);
    assert.match(err.message, /log line 99/);
    assert.doesNotMatch(err.message, /log line 50\b/, 'only the last lines are kept');
    assert.match(chunks.join(''), /log line 0\n/);
    await assert.rejects(conn.send(note(1)), /closed/);
  });

  test('a command that does not exist closes with an error naming it', async () => {
    const conn = spawnStdio({ command: 'mcpwire-no-such-command' });
    const r = recordingReceiver();
    conn.start(r);
    await r.until(() => r.closes.length > 0);
    assert.equal(conn.pid, undefined);
    assert.ok(r.closes[0] instanceof StdioProcessError);
    assert.match(r.closes[0].message, /mcpwire-no-such-command/);
    assert.match(r.closes[0].message, /ENOENT/);
    await conn.close();
    assert.equal(r.closes.length, 1);
  });

  test('the child gets the allow-listed environment plus env, not the rest of ours', async () => {
    process.env.MCPWIRE_TEST_SECRET = 'hunter2';
    try {
      const script = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'env', params: {
        secret: process.env.MCPWIRE_TEST_SECRET ?? null, given: process.env.GIVEN, path: process.env.PATH } }) + '\\n');`;
      const conn = node(script, { env: { GIVEN: 'yes' } });
      const r = recordingReceiver();
      conn.start(r);
      await r.until(() => r.messages.length === 1);
      assert.deepEqual((r.messages[0] as { params: unknown }).params, {
        secret: null,
        given: 'yes',
        path: process.env.PATH,
      });
      await conn.close();
    } finally {
      delete process.env.MCPWIRE_TEST_SECRET;
    }
  });

  test('invalid output from the child is answered on its stdin and reported', async () => {
    const script = `process.stdout.write('garbage\\n');
      require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
        process.stderr.write(l + '\\n'); process.exit(0); });`;
    const conn = node(script);
    const r = recordingReceiver();
    conn.start(r);
    await r.until(() => r.closes.length > 0);
    assert.equal(r.errors.length, 1);
    assert.match(String(r.closes[0]), /-32700/);
  });

  test('talks to our own stdio server end, which lets its process exit when stdin ends', async () => {
    const server = new URL('../../server/stdio/stdio-server-connection.ts', import.meta.url).href;
    const script = `import { stdioServerConnection } from ${JSON.stringify(server)};
      const conn = stdioServerConnection();
      conn.start({ message: (m) => conn.send({ jsonrpc: '2.0', id: m.id, result: { echo: m.params } }),
        batch() {}, error() {}, closed() { console.error('server closed'); } });`;
    const chunks: string[] = [];
    const conn = spawnStdio({
      command: process.execPath,
      args: ['--import', 'tsx', '--input-type=module', '-e', script],
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      onStderr: (c) => chunks.push(c),
      closeGraceMs: GRACE_MS,
    });
    const r = recordingReceiver();
    conn.start(r);
    await conn.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { x: 1 } });
    await r.until(() => r.messages.length === 1);
    assert.deepEqual(r.messages, [{ jsonrpc: '2.0', id: 1, result: { echo: { x: 1 } } }]);
    const started = Date.now();
    await conn.close();
    assert.ok(Date.now() - started < GRACE_MS, 'exited on stdin end');
    assert.match(chunks.join(''), /server closed/);
  });

  test('a child that stops reading: past maxQueuedBytes a message fails to send, naming it; the rest stay queued', async () => {
    // Never reads stdin, so the pipe fills and the lines wait in this process.
    const conn = node(
      `setInterval(() => {}, 1000); process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');`,
      {
        maxQueuedBytes: 200_000,
      },
    );
    const r = recordingReceiver();
    conn.start(r);
    await r.until(() => r.messages.length === 1);
    const big = (n: number): JsonRpcMessage => ({
      jsonrpc: '2.0',
      method: 'n',
      params: { n, pad: 'x'.repeat(10_000) },
    });
    const sends: Promise<void>[] = [];
    let refused: Error | undefined;
    for (let n = 0; n < 100 && refused === undefined; n++) {
      const sent = conn.send(big(n));
      sends.push(sent);
      await Promise.race([sent, new Promise((resolve) => setImmediate(resolve))]).catch((err: Error) => {
        refused = err;
      });
    }
    assert.ok(refused, 'a send was refused');
    assert.match(
      refused.message,
      /node -e .* is not reading its input: \d+ characters already wait to be written to it \(at most 200000\)/,
    );
    // What waited before is still waiting (neither sent nor failed): the child may yet read it.
    const earlier = sends.at(-2)!;
    assert.equal(
      await Promise.race([
        earlier.then(
          () => 'sent',
          () => 'failed',
        ),
        Promise.resolve('waiting'),
      ]),
      'waiting',
    );
    await conn.close();
  });
});
