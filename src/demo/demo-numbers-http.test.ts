import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { openSession, post, type Served, serveOn } from '../test-support/mcp-http.js';
import { modernHeaders, modernMessage } from '../test-support/modern-http.js';
import { createDemoServer } from './demo-server.js';

/*
 * Numbers JSON.parse cannot read faithfully, sent as raw text to the demo server over HTTP in both eras:
 * an id beyond 2^53 is refused with an id of null instead of answered with a rounded one, an argument of
 * 1e400 is -32602 instead of Infinity, and a sum that overflows is a tool error instead of `"sum":null`.
 */

type Era = 'legacy' | 'modern';

/** An answer as the wire carried it: the HTTP status, the id's own text, and the message parsed. */
interface Answer {
  status: number;
  idText: string;
  message: any;
}

/** Reads the one JSON-RPC message of a response, from a JSON body or the first SSE data line. */
async function answerOf(res: Response): Promise<Answer> {
  const body = await res.text();
  const text = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (body.split('\n').find((line) => line.startsWith('data: {')) ?? '').slice('data: '.length)
    : body;
  // Read from the text: JSON.parse would round the very ids under test.
  const idText = /^\{"jsonrpc":"2\.0","id":(null|-?\d+|"(?:[^"\\]|\\.)*")/.exec(text)?.[1] ?? '(no id)';
  return { status: res.status, idText, message: JSON.parse(text) };
}

/** A tools/call of add whose id and arguments are given as JSON text, exactly as they go on the wire. */
function addCall(era: Era, idText: string, aText: string, bText: string): string {
  const params = { name: 'add', arguments: { a: 0, b: 0 } };
  const message =
    era === 'modern'
      ? modernMessage(0, 'tools/call', params)
      : { jsonrpc: '2.0', id: 0, method: 'tools/call', params };
  return JSON.stringify(message)
    .replace('"id":0', `"id":${idText}`)
    .replace('"a":0', `"a":${aText}`)
    .replace('"b":0', `"b":${bText}`);
}

describe('demo server over HTTP: numbers JSON.parse cannot read faithfully', () => {
  let served: Served;
  let sessionId: string;
  before(async () => {
    served = await serveOn(new StreamableHTTPHandler(createDemoServer()).node());
    sessionId = await openSession(served.url);
  });
  after(() => served.close());

  function send(era: Era, text: string): Promise<Answer> {
    const options =
      era === 'modern' ? { headers: modernHeaders('tools/call', 'add') } : { sessionId: sessionId };
    return post(served.url, text, options).then(answerOf);
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: an id of 2^64 is refused with -32600 and an id of null, not answered with a rounded id`, async () => {
      const answer = await send(era, addCall(era, '18446744073709551616', '1', '2'));
      assert.equal(answer.status, 400);
      assert.equal(answer.idText, 'null');
      assert.equal(answer.message.error.code, -32600);
      assert.match(answer.message.error.message, /"id" must be a safe integer .*send the id as a string/);
    });

    test(`${era}: ids 2^53 and 2^53+1 are both refused, not taken for one another`, async () => {
      for (const id of ['9007199254740992', '9007199254740993']) {
        const answer = await send(era, addCall(era, id, '1', '2'));
        assert.equal(answer.status, 400, id);
        assert.equal(answer.idText, 'null', id);
        assert.match(answer.message.error.message, /safe integer/, id);
      }
      const largest = await send(era, addCall(era, '9007199254740991', '1', '2'));
      assert.equal(largest.idText, '9007199254740991');
      assert.deepEqual(largest.message.result.structuredContent, { sum: 3 });
    });

    test(`${era}: an argument of 1e400 is -32602 naming arguments.a, not added as Infinity`, async () => {
      const answer = await send(era, addCall(era, '7', '1e400', '1'));
      assert.equal(answer.status, era === 'modern' ? 400 : 200);
      assert.equal(answer.idText, '7');
      assert.equal(answer.message.error.code, -32602);
      assert.match(
        answer.message.error.message,
        /^Invalid params: params\.arguments\.a is Infinity, not a finite number .*1e400/,
      );
    });

    test(`${era}: 1e308 + 1e308 is a tool error naming structuredContent.sum, never "sum":null`, async () => {
      const answer = await send(era, addCall(era, '"sum"', '1e308', '1e308'));
      assert.equal(answer.status, 200);
      assert.equal(answer.idText, '"sum"');
      const result = answer.message.result;
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      assert.match(result.content[0].text, /structuredContent\.sum is Infinity, not a finite number/);
    });

    test(`${era}, property: hostile ids and numbers never change an id nor break add's output schema`, async () => {
      const integer = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String);
      const id = fc.oneof(integer, fc.constantFrom('9007199254740992', '9007199254740993', '1e400', '1.5'));
      const number = fc.oneof(
        integer,
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
        fc.constantFrom('1e400', '-1e400', '1e308', '1.7976931348623157e308', '1e-400', '4e307'),
      );
      await fc.assert(
        fc.asyncProperty(id, number, number, async (idText, a, b) => {
          const answer = await send(era, addCall(era, idText, a, b));
          const readable = /^-?\d+$/.test(idText) && Number.isSafeInteger(Number(idText));
          assert.equal(answer.idText, readable ? idText : 'null');
          if (!readable) return assert.equal(answer.message.error.code, -32600);
          const overflows = !Number.isFinite(Number(a)) || !Number.isFinite(Number(b));
          if (overflows) return assert.equal(answer.message.error.code, -32602);
          const result = answer.message.result;
          if (result.isError === true) {
            assert.ok(!Number.isFinite(Number(a) + Number(b)), result.content[0].text);
            return;
          }
          assert.equal(typeof result.structuredContent.sum, 'number');
          assert.equal(result.structuredContent.sum, Number(a) + Number(b));
        }),
        fuzzRuns(60),
      );
    });
  }
});
