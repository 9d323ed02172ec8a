// The HTTP probe against a server whose answer to the discover POST is hostile: any status, any Content-Type,
// a body that is JSON, SSE events, text or nothing, an answer to another id, a body that never ends. Whatever
// comes, the probe ends within its timeout, with the era spec 2026-07-28's rules (Streamable HTTP, backwards
// compatibility) give, a refusal as an McpError with the server's code, and 401 or 403 as an HTTP error. Runs
// and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import {
  anyError,
  anyResult,
  isResponse,
  type Verdict,
  verdictFor,
} from '../../test-support/discover-arbitraries.js';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import { StreamableHTTPError } from '../http/http-client-errors.js';
import { probeHTTP } from './probe-http.js';

const TIMEOUT_MS = 250;
const client = new Client({ name: 'probe-http-fuzz', version: '1' });

/** A JSON-RPC message as a server might send it: an answer to the probe (id 0), to another id, or anything. */
const anyMessage = fc.oneof(
  fc.jsonValue(),
  {
    weight: 3,
    arbitrary: fc.record({
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '2.0', '1.0'),
      id: fc.constantFrom(0, 0, 0, 0, 0, 1, '0', null),
      result: anyResult,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '2.0', '1.0'),
      id: fc.constantFrom(0, 0, 0, 0, 0, 1, '0', null),
      error: anyError,
    }),
  },
);

type Body =
  | { kind: 'json'; message: unknown }
  | { kind: 'sse'; events: unknown[] }
  | { kind: 'text'; text: string }
  | { kind: 'empty' };

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: anyMessage.map((message) => ({ kind: 'json' as const, message })) },
  {
    weight: 3,
    arbitrary: fc
      .array(anyMessage, { minLength: 1, maxLength: 3 })
      .map((events) => ({ kind: 'sse' as const, events })),
  },
  fc.string().map((text) => ({ kind: 'text' as const, text })),
  fc.constant({ kind: 'empty' as const }),
);

const CONTENT_TYPES = ['application/json', 'text/event-stream', 'text/html', undefined] as const;
const TYPE_OF = { json: 'application/json', sse: 'text/event-stream' } as const;

const reply = fc
  .record({
    status: fc.constantFrom(200, 200, 202, 400, 401, 403, 404, 404, 405, 500),
    // Mostly the type that goes with the body; now and then any other.
    typed: fc.tuple(
      body,
      fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, fc.constantFrom(...CONTENT_TYPES)),
    ),
    // The body stays open after what it holds: only the timeout ends a read that waits for its end.
    endless: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, fc.constant(true)),
  })
  .map(({ status, typed: [b, type], endless }) => ({
    status,
    body: b,
    contentType:
      type === null ? (b.kind === 'json' || b.kind === 'sse' ? TYPE_OF[b.kind] : 'text/html') : type,
    endless,
  }));
type Reply = typeof reply extends fc.Arbitrary<infer R> ? R : never;

function text(b: Body): string {
  if (b.kind === 'json') return JSON.stringify(b.message);
  if (b.kind === 'sse') return b.events.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join('');
  return b.kind === 'text' ? b.text : '';
}

/** A fetch that answers every POST with `r`, its body cut by the request's signal as a real one is. */
function fetchAnswering(r: Reply): typeof fetch {
  return async (_url, init) => {
    const signal = init?.signal ?? undefined;
    const bytes = new TextEncoder().encode(text(r.body));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        if (bytes.length > 0) controller.enqueue(bytes);
        if (!r.endless) controller.close();
        else signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
    });
    const headers = r.contentType === undefined ? undefined : { 'content-type': r.contentType };
    return new Response(stream, { status: r.status, headers });
  };
}

/** What the rules give for `r`, asked again the same way every time. */
function expected(r: Reply): Verdict | { http: number } {
  if (r.status === 401 || r.status === 403) return { http: r.status };
  const sse = r.contentType === 'text/event-stream';
  // The answer read: a JSON body whole, or the first event of an SSE body that is a response (the stream may
  // stay open after it).
  let answer: unknown;
  if (!sse && r.body.kind === 'json' && !r.endless) answer = r.body.message;
  if (sse && r.body.kind === 'sse') answer = r.body.events.find(isResponse);
  return verdictFor(answer, 0, r.status);
}

test('a hostile answer to the HTTP probe ends it within its timeout, in the era the rules give', async () => {
  await fc.assert(
    fc.asyncProperty(reply, async (r) => {
      let outcome: unknown;
      try {
        const found = await within(
          probeHTTP('http://127.0.0.1:1/mcp', client, { fetch: fetchAnswering(r), timeout: TIMEOUT_MS }),
          20 * TIMEOUT_MS,
          'the probe',
        );
        outcome = { era: found.era };
        if (found.era === 'legacy') assert.ok(found.answer.length > 0, 'a legacy verdict says what came');
      } catch (err) {
        if (err instanceof StreamableHTTPError) outcome = { http: err.status };
        else if (err instanceof McpError) outcome = { refused: err.code };
        else throw err;
      }

      assert.deepEqual(outcome, expected(r));
    }),
    fuzzRuns(250),
  );
});
