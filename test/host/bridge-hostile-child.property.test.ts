// The bridge before a stdio child that answers a tools/call with whatever it likes: lines that are not JSON, JSON
// that is no message, notifications and requests of its own with any params, answers to ids never sent, and then
// its answer to the call: a valid result, a valid error with any code, message and data, one that is not a valid
// response (a result that is no object, an error with no code, neither, another "jsonrpc", in a batch), or a valid
// response whose result is no CallToolResult. Whatever it writes, a client of either era gets the child's answer
// (the result, or an McpError with its code, message and data) or, for the others, an McpError -32603 saying what
// is wrong: within seconds, never at a timeout.
// The bridge keeps the same child throughout, and serves another client after. Runs and seed: test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession, connectUrl } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { fc, fuzzRuns } from '../../src/test-support/fuzz.js';
import { handWrittenServer } from '../../src/test-support/hand-written-server.js';
import { serveBridge } from '../../src/test-support/served-bridge.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
/** Where a line of the script puts the id of the request it answers: the child writes the id there. */
const ID = '$ID';

/**
 * A 2025 stdio server written by hand: `act` writes the lines it is given, each with the call's id in place of
 * "$ID", and nothing else; `pid` answers its process id.
 */
const CHILD = handWrittenServer(`
    if (m.method === 'initialize') answer(m, { result: { protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: { name: 'hostile', version: '1' } } });
    else if (m.method === 'ping') answer(m, { result: {} });
    else if (m.method === 'tools/list') answer(m, { result: { tools: [
      { name: 'act', inputSchema: { type: 'object' } }, { name: 'pid', inputSchema: { type: 'object' } }] } });
    else if (m.method === 'tools/call' && m.params.name === 'pid')
      answer(m, { result: { content: [{ type: 'text', text: String(process.pid) }] } });
    else if (m.method === 'tools/call') {
      for (const line of m.params.arguments.lines)
        process.stdout.write(line.split('"${ID}"').join(JSON.stringify(m.id)) + '\\n');
    } else if (m.method !== undefined) answer(m, { error: { code: -32601, message: 'no ' + m.method } });`);

/** What the child answers the call with, and what the client must get for it. */
type Answer =
  | { kind: 'result'; text: string; isError: boolean | undefined }
  | { kind: 'error'; code: number; message: string; data: unknown }
  | { kind: 'invalid'; line: Record<string, unknown> }
  | { kind: 'misfit'; result: Record<string, unknown>; problem: string }
  | { kind: 'batch' };

const valid = fc.oneof(
  fc
    .record(
      { text: fc.string({ maxLength: 30 }), isError: fc.option(fc.boolean(), { nil: undefined }) },
      { requiredKeys: ['text'] },
    )
    .map(({ text, isError }): Answer => ({ kind: 'result', text, isError })),
  fc
    .record({
      code: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }),
      message: fc.string({ maxLength: 30 }),
      data: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    })
    .map(({ code, message, data }): Answer => ({ kind: 'error', code, message, data })),
);
const invalid: fc.Arbitrary<Answer> = fc
  .oneof(
    fc
      .oneof(
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.jsonValue({ maxDepth: 1 })),
      )
      .map((result) => ({ jsonrpc: '2.0', id: ID, result })),
    fc
      .oneof(fc.string(), fc.integer(), fc.constant(null), fc.record({ message: fc.string() }))
      .map((error) => ({ jsonrpc: '2.0', id: ID, error })),
    fc
      .record({ code: fc.double().filter((c) => !Number.isInteger(c)), message: fc.string() })
      .map((error) => ({ jsonrpc: '2.0', id: ID, error })),
    fc
      .record({ code: fc.integer(), message: fc.oneof(fc.integer(), fc.constant(null)) })
      .map((error) => ({ jsonrpc: '2.0', id: ID, error })),
    fc.constant({ jsonrpc: '2.0', id: ID }),
    fc.constant({ jsonrpc: '2.0', id: ID, result: {}, error: { code: 1, message: 'both' } }),
    fc.constantFrom('1.0', 2, null).map((jsonrpc) => ({ jsonrpc, id: ID, result: { content: [] } })),
  )
  .map((line) => ({ kind: 'invalid', line }));
/** Valid responses whose result is no CallToolResult, and where it is not. */
const misfit: fc.Arbitrary<Answer> = fc
  .constantFrom<[Record<string, unknown>, string]>(
    [{ content: null }, '.content must be an array'],
    [{ content: 'text' }, '.content must be an array'],
    [{ content: [{ type: 'text' }] }, '.content[0].text must be a string'],
    [
      { content: [{ type: 'video', url: 'x' }] },
      '.content[0].type must be "text", "image", "audio", "resource_link" or "resource"',
    ],
    [{ content: [], isError: 'yes' }, '.isError must be a boolean'],
  )
  .map(([result, problem]) => ({ kind: 'misfit', result, problem }));
const answer = fc.oneof(
  { weight: 3, arbitrary: valid },
  { weight: 2, arbitrary: invalid },
  { weight: 1, arbitrary: misfit },
  { weight: 1, arbitrary: fc.constant<Answer>({ kind: 'batch' }) },
);

function answerLine(a: Answer): string {
  switch (a.kind) {
    case 'result': {
      const result: Record<string, unknown> = { content: [{ type: 'text', text: a.text }] };
      if (a.isError !== undefined) result.isError = a.isError;
      return JSON.stringify({ jsonrpc: '2.0', id: ID, result });
    }
    case 'error':
      return JSON.stringify({
        jsonrpc: '2.0',
        id: ID,
        error: { code: a.code, message: a.message, data: a.data },
      });
    case 'invalid':
      return JSON.stringify(a.line);
    case 'misfit':
      return JSON.stringify({ jsonrpc: '2.0', id: ID, result: a.result });
    case 'batch':
      return JSON.stringify([{ jsonrpc: '2.0', id: ID, result: { content: [] } }]);
  }
}

/** Valid requests of the child's, which the clients answer (HANDLERS). */
const ASKS: Record<string, unknown> = {
  'elicitation/create': {
    mode: 'form',
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
  'sampling/createMessage': {
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    maxTokens: 5,
  },
  'roots/list': {},
};
const HANDLERS = {
  roots: [{ uri: 'file:///tmp', name: 'tmp' }],
  sampling: () => ({
    role: 'assistant' as const,
    content: { type: 'text' as const, text: 'hello' },
    model: 'm',
  }),
  elicitation: { form: () => ({ action: 'decline' as const }) },
};

/** Ids no request of the bridge's has: the child's own, and those of answers to nothing. */
const foreignId = fc.oneof(
  fc.integer({ min: 1_000_000 }),
  fc.string().map((s) => `other-${s}`),
);
const anyParams = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
/** A line that answers no request of the bridge's. */
const noise: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }).filter((s) => !s.includes('\n')),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((v) => JSON.stringify(v))
    .filter((text) => !text.includes('"id"')),
  fc
    .record({
      method: fc.constantFrom(
        'notifications/message',
        'notifications/progress',
        'notifications/cancelled',
        'notifications/tools/list_changed',
        'notifications/resources/updated',
        'x/unknown',
      ),
      params: fc.oneof(anyParams, fc.constantFrom({ level: 'error', data: 'boom' }, { requestId: 7 })),
    })
    .map(({ method, params }) => JSON.stringify({ jsonrpc: '2.0', method, params })),
  fc
    .record({
      id: foreignId,
      method: fc.constantFrom(
        'sampling/createMessage',
        'elicitation/create',
        'roots/list',
        'ping',
        'x/unknown',
      ),
      params: anyParams,
    })
    .map(({ id, method, params }) => JSON.stringify({ jsonrpc: '2.0', id, method, params })),
  fc
    .record({ id: foreignId, result: fc.oneof(anyParams, fc.string()) })
    .map(({ id, result }) => JSON.stringify({ jsonrpc: '2.0', id, result })),
  // Requests the clients answer: before the answer, the call takes a round through its client first (for a 2026
  // client, an input_required round and the retry).
  fc
    .tuple(foreignId, fc.constantFrom(...Object.entries(ASKS)))
    .map(([id, [method, params]]) => JSON.stringify({ jsonrpc: '2.0', id, method, params })),
);

/** The call's outcome as the client sees it: the child's answer, or -32603 saying why it is not one. */
function check(a: Answer, outcome: { result: unknown } | { error: unknown }): void {
  if (a.kind === 'result') {
    assert.ok(
      'result' in outcome,
      `expected the child's result, got ${String((outcome as { error: unknown }).error)}`,
    );
    const result = outcome.result as { content: unknown; isError?: boolean };
    assert.equal(toolText(result), a.text);
    assert.equal(result.isError, a.isError);
    return;
  }
  assert.ok('error' in outcome, `expected an error, got ${JSON.stringify(outcome)}`);
  const error = outcome.error;
  assert.ok(error instanceof McpError, String(error));
  if (a.kind === 'error') {
    assert.equal(error.code, a.code);
    assert.equal(error.message, a.message);
    assert.deepEqual(error.data, a.data === undefined ? undefined : JSON.parse(JSON.stringify(a.data)));
    return;
  }
  assert.equal(error.code, -32603);
  if (a.kind === 'misfit') {
    assert.equal(
      error.message,
      `The server behind the bridge answered tools/call with a result that is not one: result${a.problem}`,
    );
    return;
  }
  assert.match(
    error.message,
    /^The server behind the bridge answered tools\/call with a message that is not a valid JSON-RPC response: /,
  );
  if (a.kind === 'batch')
    assert.match(error.message, /it came in a batch: JSON-RPC batches are not supported/);
}

describe('bridge ↔ a child that answers with anything (property)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-hostile-'));
  const reports: string[] = [];
  let url: string;
  let close: () => Promise<void>;
  const sessions: Record<'legacy' | 'modern', ClientSession | undefined> = {
    legacy: undefined,
    modern: undefined,
  };
  let pid: string;

  before(async () => {
    const file = join(dir, 'child.mjs');
    writeFileSync(file, CHILD);
    ({ url, close } = await serveBridge({
      upstream: { command: { command: process.execPath, args: [file] } },
      report: (message) => reports.push(message),
    }));
    for (const era of ['legacy', 'modern'] as const) {
      sessions[era] = await within(
        connectUrl(new Client({ name: era, version: '1' }, { era, ...HANDLERS }), url),
        MS,
        era,
      );
    }
    pid = toolText(await sessions.legacy!.callTool('pid'));
  });

  after(async () => {
    for (const session of Object.values(sessions)) await session?.close();
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the client gets the child’s answer, or -32603 saying why it is none, and the child is kept', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('legacy' as const, 'modern' as const),
        fc.array(noise, { maxLength: 4 }),
        answer,
        fc.array(fc.oneof(noise, answer.map(answerLine)), { maxLength: 3 }),
        async (era, before, a, afterwards) => {
          const lines = [...before, answerLine(a), ...afterwards];
          const outcome = await within(
            sessions[era]!.callTool('act', { lines }).then(
              (result) => ({ result }),
              (error: unknown) => ({ error }),
            ),
            MS,
            `the ${era} call`,
          );
          check(a, outcome);
        },
      ),
      fuzzRuns(120),
    );
    // The same child throughout; a new client is served by it.
    const late = await within(
      connectUrl(new Client({ name: 'late', version: '1' }), url),
      MS,
      'a new client',
    );
    try {
      assert.equal(toolText(await late.callTool('pid')), pid);
    } finally {
      await late.close();
    }
    assert.deepEqual(
      reports.filter((r) => /exit|restart|down/i.test(r)),
      [],
      'the child never ended',
    );
  });
});
