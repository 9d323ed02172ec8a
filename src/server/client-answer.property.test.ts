// Hostile answers to ctx.elicit in both eras (issue 21): whatever a client answers, the handler either goes on
// with an answer that fits the schema it asked with (judged by ajv), or never sees the answer and the request
// fails with InvalidClientAnswerError (-32602). Runs and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import type { ElicitResult } from '../protocol/types.js';
import { anyContent, type FormSchema, formSchema, judge } from '../test-support/elicitation-arbitraries.js';
import { FakeClient } from '../test-support/fake-client.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { InvalidClientAnswerError } from './client-answer.js';
import { ModernScope } from './client-scope.js';
import { ModernCall } from './modern/modern-call.js';
import { Server } from './server.js';

const answer = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 6,
    arbitrary: fc.record(
      { action: fc.constantFrom('accept', 'accept', 'decline', 'cancel', 'ok'), content: anyContent },
      { requiredKeys: ['action'] },
    ),
  },
);

/** A server whose tool asks with the schema it is given, and records every answer it goes on with. */
function askingServer() {
  const seen: ElicitResult[] = [];
  const server = new Server({ name: 'asks', version: '1.0.0' });
  server.tool({ name: 'ask' }, async (args, ctx) => {
    const reply = await ctx.elicit({ message: 'Fill in', requestedSchema: args.schema as never });
    seen.push(reply);
    return { content: [{ type: 'text', text: reply.action }] };
  });
  return { server, seen };
}

/** The handler went on only with an answer that fits: a known action, and accepted content the judge accepts. */
function assertFits(schema: FormSchema, reply: ElicitResult): void {
  assert.ok(['accept', 'decline', 'cancel'].includes(reply.action), JSON.stringify(reply));
  if (reply.action === 'accept') assert.ok(judge(schema)(reply.content ?? {}), JSON.stringify(reply));
  else assert.equal(reply.content, undefined);
}

describe('the handler never runs on an answer that does not fit', () => {
  test('2026-07-28: the retry is refused before the handler runs, or the handler sees a fitting answer', async () => {
    const { server, seen } = askingServer();
    let id = 0;
    const run = (params: Record<string, unknown>) => {
      const request: JsonRpcRequest = { jsonrpc: '2.0', id: ++id, method: 'tools/call', params };
      const scope = new ModernScope('2026-07-28', { elicitation: {} }, undefined, undefined, false);
      return new ModernCall(server, request, scope, { notify() {}, transport: undefined }, undefined).run();
    };
    await fc.assert(
      fc.asyncProperty(formSchema, answer, async (schema, result) => {
        const params = { name: 'ask', arguments: { schema } };
        const first = await run(params);
        const before = seen.length;
        try {
          const done = await run({
            ...params,
            requestState: first.requestState,
            inputResponses: { 'mcpwire.0': result },
          });
          assert.equal(done.resultType, 'complete');
          assert.equal(seen.length, before + 1);
          assertFits(schema, seen[before]);
        } catch (err) {
          assert.ok(err instanceof InvalidClientAnswerError, String(err));
          assert.ok(err.field.startsWith('inputResponses["mcpwire.0"]'), err.field);
          assert.equal(seen.length, before, 'the handler ran on a wrong answer');
        }
      }),
      fuzzRuns(300),
    );
  });

  test('2025-11-25: ctx.elicit resolves with a fitting answer, or the call fails -32602 and the handler saw nothing', async () => {
    const { server, seen } = askingServer();
    const client = new FakeClient(server);
    await client.initialize({ elicitation: {} });
    await fc.assert(
      fc.asyncProperty(formSchema, answer, async (schema, result) => {
        const before = seen.length;
        const from = client.sent.length;
        const response = client.call('tools/call', { name: 'ask', arguments: { schema } });
        await client.answer('elicitation/create', result, from);
        const { result: done, error } = await response;
        if (error === undefined) {
          assert.equal(done.isError, undefined, JSON.stringify(done));
          assert.equal(seen.length, before + 1);
          assertFits(schema, seen[before]);
        } else {
          assert.equal(error.code, ErrorCode.InvalidParams, JSON.stringify(error));
          assert.equal(error.data.method, 'elicitation/create');
          assert.ok(error.data.field.startsWith('result'), error.data.field);
          assert.equal(seen.length, before, 'the handler ran on a wrong answer');
        }
      }),
      fuzzRuns(300),
    );
  });
});
