// Wrong answers to the demo server's questions, in both eras on one endpoint (issue 21, part 2): a 2026-07-28
// retry over HTTP whose inputResponses do not fit what was asked gets -32602 naming the field, before the tool
// runs again, and may be sent again corrected; the official SDK v1 client on a 2025-11-25 session, whose
// elicitation handler answers content that does not fit the requested schema, gets the -32602 for its call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as McpwireClient } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { McpError as McpwireError } from '../../src/jsonrpc/errors.js';
import { type DemoHere, serveDemoHere } from '../../src/test-support/demo-both-transports.js';
import { jsonBody } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import { toolText } from '../../src/test-support/tool-text.js';

const CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const KEY = 'mcpwire.0';

describe('answers that do not fit the question, against the demo server', () => {
  let demo: DemoHere;
  let url: string;
  let nextId = 1;

  /** One 2026-07-28 tools/call; answers the HTTP status and the JSON-RPC message. */
  const call = async (
    name: string,
    extra: Record<string, unknown> = {},
    args: Record<string, unknown> = {},
  ) => {
    const response = await postModern(
      url,
      nextId++,
      'tools/call',
      { name, arguments: args, ...extra },
      {
        capabilities: CAPS,
      },
    );
    return { status: response.status, body: await jsonBody(response) };
  };

  /** The first round of `name`: its requestState, after checking that it asks one thing under KEY. */
  const firstRound = async (name: string, args: Record<string, unknown> = {}) => {
    const { body } = await call(name, {}, args);
    assert.equal(body.result?.resultType, 'input_required', JSON.stringify(body));
    assert.deepEqual(Object.keys(body.result.inputRequests), [KEY]);
    return body.result.requestState as string;
  };

  before(async () => {
    demo = await serveDemoHere();
    url = `${demo.base}/mcp`;
  });
  after(() => demo.close());

  describe('2026-07-28: a retry carrying a wrong answer', () => {
    for (const [answer, field, problem] of [
      [
        { action: 'accept', content: 'Ada' },
        'content',
        "must be an object (the form's values by property name)",
      ],
      [{ action: 'accept', content: { name: '' } }, 'content.name', 'must have at least 1 characters'],
      [{ action: 'accept', content: {} }, 'content.name', 'is required'],
      [{ action: 'accept', content: { name: ['Ada'] } }, 'content.name', 'must be a string'],
      [{ action: 'yes' }, 'action', 'must be "accept", "decline" or "cancel"'],
    ] as const) {
      test(`${JSON.stringify(answer)}: 200 with -32602 naming inputResponses["${KEY}"].${field}`, async () => {
        const requestState = await firstRound('elicit_name');
        const { status, body } = await call('elicit_name', {
          requestState,
          inputResponses: { [KEY]: answer },
        });
        assert.equal(status, 200);
        assert.equal(body.result, undefined);
        const expected = `inputResponses["${KEY}"].${field}`;
        assert.deepEqual(body.error, {
          code: -32602,
          message: `Invalid answer to elicitation/create from the client: ${expected} ${problem}`,
          data: { method: 'elicitation/create', field: expected },
        });
      });
    }

    test('the client may send the same retry again, corrected', async () => {
      const requestState = await firstRound('elicit_name');
      const wrong = await call('elicit_name', {
        requestState,
        inputResponses: { [KEY]: { action: 'accept', content: 'Ada' } },
      });
      assert.equal(wrong.body.error.code, -32602);
      const right = await call('elicit_name', {
        requestState,
        inputResponses: { [KEY]: { action: 'accept', content: { name: 'Ada' } } },
      });
      assert.equal(right.body.result.resultType, 'complete');
      assert.equal(toolText(right.body.result), 'Hello, Ada');
    });

    test('a sampling result without its model, and roots that are no file:// URIs, are refused the same way', async () => {
      const sampleState = await firstRound('sample', { prompt: 'hi' });
      const sampled = await call(
        'sample',
        {
          requestState: sampleState,
          inputResponses: { [KEY]: { role: 'assistant', content: { type: 'text', text: 'HI' } } },
        },
        { prompt: 'hi' },
      );
      assert.deepEqual(sampled.body.error?.data, {
        method: 'sampling/createMessage',
        field: `inputResponses["${KEY}"].model`,
      });
      const rootsState = await firstRound('list_roots');
      const rooted = await call('list_roots', {
        requestState: rootsState,
        inputResponses: { [KEY]: { roots: [{ uri: 'https://example.com/repo' }] } },
      });
      assert.deepEqual(rooted.body.error?.data, {
        method: 'roots/list',
        field: `inputResponses["${KEY}"].roots[0].uri`,
      });
    });

    test('answers without the requestState that asked for them are asked for again, never taken', async () => {
      // The conformance scenario input-required-result-validate-input: a number where a result belongs.
      for (const answers of [{ [KEY]: 12345 }, { [KEY]: { action: 'accept', content: { name: 'Ada' } } }]) {
        const { body } = await call('elicit_name', { inputResponses: answers });
        assert.equal(body.result?.resultType, 'input_required', JSON.stringify(body));
      }
    });
  });

  describe('2025-11-25: the official SDK v1 client answers elicitation/create wrongly', () => {
    let client: Client;
    const answers: unknown[] = [];

    before(async () => {
      client = new Client(
        { name: 'sdk-v1-wrong-answers', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, () => answers.shift() as never);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    });
    after(() => client.close());

    test('content the SDK lets through but the schema does not (a number for a string): the call fails with -32602', async () => {
      answers.push({ action: 'accept', content: { name: 42 } });
      await assert.rejects(client.callTool({ name: 'elicit_name', arguments: {} }), (err: unknown) => {
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32602);
        assert.match(
          err.message,
          /Invalid answer to elicitation\/create from the client: result\.content\.name must be a string/,
        );
        assert.deepEqual(err.data, { method: 'elicitation/create', field: 'result.content.name' });
        return true;
      });
    });

    test('a right answer on the same session still goes through, and a decline’s content is dropped', async () => {
      answers.push({ action: 'accept', content: { name: 'Grace' } });
      assert.equal(toolText(await client.callTool({ name: 'elicit_name', arguments: {} })), 'Hello, Grace');
      answers.push({ action: 'decline', content: { name: 7 } });
      assert.equal(
        toolText(await client.callTool({ name: 'elicit_name', arguments: {} })),
        'The user chose to decline',
      );
    });
  });

  describe("mcpwire's own client never sends an answer the server would refuse", () => {
    for (const era of ['modern', 'legacy'] as const) {
      test(`${era}: its handler's wrong form content fails the call at the client, naming the field`, async () => {
        const client = new McpwireClient(
          { name: 'careless', version: '1.0.0' },
          { era, elicitation: { form: () => ({ action: 'accept', content: { name: '' } }) } },
        );
        const session = await connectUrl(client, url);
        try {
          assert.equal(session.era, era);
          await assert.rejects(session.callTool('elicit_name'), (err: unknown) => {
            assert.ok(err instanceof McpwireError, String(err));
            // The client's own refusal (modern: the retry never goes out; legacy: its error response, relayed by
            // the server's call), not the server's, which would name inputResponses or say "from the client".
            assert.equal(err.code, -32603);
            assert.equal(
              err.message,
              "This client's answer to elicitation/create is wrong, so it was not sent: result.content.name must have at least 1 characters",
            );
            return true;
          });
        } finally {
          await session.close();
        }
      });
    }
  });
});
