// A body or a stdio line is decoded into one string, and V8 makes none longer than 2^29 - 24 code units: a
// bound past that would let a client crash the process where the text is decoded, so each entry point that
// takes one refuses it up front, naming the option.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { spawnStdio } from '../../src/client/stdio/stdio-client-connection.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { LegacySSEHandler } from '../../src/server/sse/legacy-sse-handler.js';
import { serveStdio } from '../../src/server/stdio/serve-stdio.js';

const server = () => new Server({ name: 'bounds', version: '1' });
const refused = (name: string, value: number) => (err: unknown) =>
  err instanceof RangeError &&
  err.message ===
    `${name} must be a whole number of bytes from 1 to 536870888 (what is read is decoded into one string, and ` +
      `V8 makes none longer), not ${value}`;

test('maxBodyBytes past the longest string, or not a whole number of bytes, is refused by both HTTP handlers', () => {
  for (const value of [2 ** 29 - 23, 0, 1.5, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => new StreamableHTTPHandler(server(), { maxBodyBytes: value }),
      refused('maxBodyBytes', value),
    );
    assert.throws(
      () => new LegacySSEHandler(server(), { maxBodyBytes: value }),
      refused('maxBodyBytes', value),
    );
  }
  assert.equal(
    new StreamableHTTPHandler(server(), { maxBodyBytes: 2 ** 29 - 24 }).constructor,
    StreamableHTTPHandler,
  );
});

test('maxLineBytes past the longest string is refused by both stdio ends, before a child is started', () => {
  const io = { stdin: new PassThrough(), stdout: new PassThrough() };
  assert.throws(
    () => serveStdio(server(), { ...io, maxLineBytes: 2 ** 30 }),
    refused('maxLineBytes', 2 ** 30),
  );
  // A command that would fail the test if it ran: it is never spawned.
  assert.throws(
    () => spawnStdio({ command: process.execPath, args: ['-e', 'process.exit(3)'], maxLineBytes: 2 ** 30 }),
    refused('maxLineBytes', 2 ** 30),
  );
});
