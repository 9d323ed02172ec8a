import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryPeer } from '../test-support/memory-peer.js';
import { discoverResult, error, result } from '../test-support/scripted-http.js';
import { within } from '../test-support/time-limit.js';
import { Client } from './client.js';
import { InvalidServerResultError } from './server-result.js';

const CAPABILITIES = { tools: {}, resources: {}, prompts: {}, completions: {} };

/** What a server that does not keep to the spec answers each method with. */
const MISFITS: Record<string, Record<string, unknown>> = {
  // The listing fits (callTool reads it first); a page asked for by the cursor "bad" does not.
  'tools/list': {
    tools: [
      { name: 'echo', inputSchema: { type: 'object' } },
      { name: 'structured', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } },
    ],
  },
  // Fits: a tool with an outputSchema may leave content out.
  'tools/call structured': { structuredContent: { sum: 4 } },
  'tools/list bad': { tools: [{ name: 'bad' }] },
  'tools/call': { content: 'hi' },
  'resources/read': { contents: [{ uri: 'file:///a' }] },
  'prompts/get': { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] },
  'completion/complete': { completion: { values: 'a' } },
};

/** A hand-played server of `era` that answers every request with its MISFITS entry. */
function misfitServer(era: 'legacy' | 'modern') {
  return memoryPeer((m) => {
    if (m.id === undefined) return undefined;
    if (m.method === 'server/discover')
      return [era === 'modern' ? result(m.id, discoverResult(CAPABILITIES)) : error(m.id, -32601, 'no')];
    if (m.method === 'initialize')
      return [
        result(m.id, {
          protocolVersion: '2025-11-25',
          capabilities: CAPABILITIES,
          serverInfo: { name: 'misfit', version: '1' },
        }),
      ];
    const variant = m.params?.cursor ?? (m.method === 'tools/call' ? m.params.name : undefined);
    const answer = MISFITS[`${m.method} ${variant}`] ?? MISFITS[m.method] ?? {};
    return [result(m.id, era === 'modern' ? { ...answer, resultType: 'complete' } : answer)];
  });
}

for (const era of ['legacy', 'modern'] as const) {
  describe(`a ${era} server's result that is not one for its method`, () => {
    test('the call rejects with InvalidServerResultError, naming the method and the field', async () => {
      const server = misfitServer(era);
      const session = await within(
        new Client({ name: 'c', version: '1' }).connect(server.connection),
        10_000,
        'connect',
      );
      try {
        assert.equal(session.era, era);
        const calls: [() => Promise<unknown>, string, string, string][] = [
          [
            () => session.listTools('bad'),
            'tools/list',
            'result.tools[0].inputSchema',
            'must be an object (a JSON Schema)',
          ],
          [() => session.callTool('echo', {}), 'tools/call', 'result.content', 'must be an array'],
          [
            () => session.readResource('file:///a'),
            'resources/read',
            'result.contents[0]',
            'must have a string "text" or "blob"',
          ],
          [
            () => session.getPrompt('p'),
            'prompts/get',
            'result.messages[0].role',
            'must be "user" or "assistant"',
          ],
          [
            () => session.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }),
            'completion/complete',
            'result.completion.values',
            'must be an array of strings',
          ],
        ];
        for (const [call, method, field, problem] of calls) {
          const err = await within(
            call().then(
              () => undefined,
              (e: unknown) => e,
            ),
            5000,
            method,
          );
          assert.ok(err instanceof InvalidServerResultError, `${method}: ${String(err)}`);
          assert.equal(err.code, -32603);
          assert.deepEqual([err.method, err.field, err.problem], [method, field, problem]);
          assert.equal(
            err.message,
            `The server answered ${method} with a result that is not one: ${field} ${problem}`,
          );
        }
        // Content left out reads as empty, as with the SDKs.
        const structured = await session.callTool('structured', {});
        assert.deepEqual([structured.content, structured.structuredContent], [[], { sum: 4 }]);
        // `request` leaves the shape to its caller, and the session goes on.
        assert.deepEqual(await session.request('tools/call', { name: 'echo' }).then((r) => r.content), 'hi');
      } finally {
        await session.close();
      }
    });
  });
}
