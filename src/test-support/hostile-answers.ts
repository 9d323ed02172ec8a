import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { ClientSession } from '../client/client-session.js';
import { McpError } from '../jsonrpc/errors.js';
import { InvalidResponseError } from '../peer/errors.js';
import { fc, fuzzRuns } from './fuzz.js';
import { within } from './time-limit.js';

/*
 * Property-test material for the HTTP clients: a server's hostile answer to a request (any status and
 * Content-Type; a JSON body, or SSE events around the answer; ended, cut or left open), and what a client must
 * make of it, written from the transport's rules apart from the clients' code. The legacy HTTP+SSE client's
 * replies are built from the same pieces (client/sse/sse-client-connection.property.test.ts).
 */

const ID = '$ID';

/**
 * What answers the call, as the client must read it: `none` when nothing does (the call fails), `any` when the model
 * cannot tell (the call need only settle), `refused` for an error status whose body is one JSON-RPC error (the call
 * fails, with that error or one of the client's own: a client may take the body's error as the answer).
 */
export type Answer =
  | { kind: 'result'; value: Record<string, unknown> }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'refused'; code: number; message: string }
  | { kind: 'invalid' }
  | { kind: 'none' }
  | { kind: 'any' };

/** One message of the body: the text it is written as, and whether (and how) it answers the call. */
export interface Piece {
  text: string;
  answer: Answer;
}

const json = (value: unknown): string => JSON.stringify(value);
const anyParams = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const otherId = fc.oneof(
  fc.integer({ min: 1_000_000 }),
  fc.string().map((s) => `other-${s}`),
);

const answering: fc.Arbitrary<Piece> = fc.oneof(
  anyParams.map(
    (value): Piece => ({
      text: json({ jsonrpc: '2.0', id: ID, result: value }),
      answer: { kind: 'result', value },
    }),
  ),
  fc.record({ code: fc.integer({ min: -40_000, max: 40_000 }), message: fc.string({ maxLength: 20 }) }).map(
    ({ code, message }): Piece => ({
      text: json({ jsonrpc: '2.0', id: ID, error: { code, message } }),
      answer: { kind: 'error', code, message },
    }),
  ),
  fc
    .constantFrom<unknown>(
      { jsonrpc: '2.0', id: ID, result: 'ok' },
      { jsonrpc: '2.0', id: ID, result: [1] },
      { jsonrpc: '2.0', id: ID, error: { message: 'no code' } },
      { jsonrpc: '2.0', id: ID },
      { jsonrpc: '1.0', id: ID, result: {} },
    )
    .map((value): Piece => ({ text: json(value), answer: { kind: 'invalid' } })),
);
export const NONE: Answer = { kind: 'none' };
export const ANY: Answer = { kind: 'any' };
const noise: fc.Arbitrary<Piece> = fc
  .oneof(
    fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s)),
    fc
      .jsonValue({ maxDepth: 2 })
      .map(json)
      .filter((t) => !t.includes('"id"')),
    fc
      .record({
        method: fc.constantFrom(
          'notifications/message',
          'notifications/progress',
          'notifications/tools/list_changed',
          'x/y',
        ),
        params: anyParams,
      })
      .map(({ method, params }) => json({ jsonrpc: '2.0', method, params })),
    fc
      .record({ id: otherId, method: fc.constantFrom('ping', 'roots/list', 'x/y') })
      .map(({ id, method }) => json({ jsonrpc: '2.0', id, method })),
    otherId.map((id) => json({ jsonrpc: '2.0', id, result: {} })),
  )
  .map((text) => ({ text, answer: NONE }));

/** How an SSE event is framed: its `event:` line (none: the default type, `message`), its data split over two lines. */
export interface Framing {
  eventType: 'message' | 'none' | 'other';
  split: boolean;
}

export const framing: fc.Arbitrary<Framing> = fc.record({
  eventType: fc.oneof(
    { weight: 3, arbitrary: fc.constant('message' as const) },
    fc.constantFrom('none' as const, 'other' as const),
  ),
  split: fc.boolean(),
});

/** How the server answers the call. */
export interface Reply extends Framing {
  status: number;
  type: string | undefined;
  /** A JSON body (one piece), or SSE events (each piece one event). */
  form: 'json' | 'sse';
  pieces: Piece[];
  ending: 'end' | 'cut' | 'open';
}

const anyType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/event-stream',
  'text/plain',
  undefined,
);
/** A JSON body: one message. */
const jsonReply = fc.record({
  form: fc.constant('json' as const),
  type: fc.oneof({ weight: 3, arbitrary: fc.constant('application/json') }, anyType),
  pieces: fc.oneof({ weight: 3, arbitrary: answering }, noise).map((p) => [p]),
});
/** Events of a stream: some before the answer, maybe the answer, and some after it. */
export const events: fc.Arbitrary<Piece[]> = fc
  .tuple(
    fc.array(noise, { maxLength: 3 }),
    fc.option(answering, { nil: undefined, freq: 4 }),
    fc.array(fc.oneof(noise, answering), { maxLength: 2 }),
  )
  .map(([before, answer, afterwards]) => [
    ...before,
    ...(answer === undefined ? [] : [answer]),
    ...afterwards,
  ]);
const sseReply = fc.record({
  form: fc.constant('sse' as const),
  type: fc.oneof({ weight: 3, arbitrary: fc.constant('text/event-stream') }, anyType),
  pieces: events,
});
const reply: fc.Arbitrary<Reply> = fc
  .record({
    status: fc.oneof(
      { weight: 6, arbitrary: fc.constant(200) },
      fc.constantFrom(202, 204, 400, 404, 500, 503),
    ),
    body: fc.oneof(jsonReply, sseReply),
    framing,
    ending: fc.oneof(
      { weight: 6, arbitrary: fc.constant('end' as const) },
      fc.constantFrom('cut' as const, 'open' as const),
    ),
  })
  .map(({ body, framing, ...rest }) => ({ ...rest, ...framing, ...body }));

/** The events' text, framed as `f` says, with the call's id in place. */
export function sseEvents(pieces: Piece[], f: Framing, id: unknown): string {
  const head =
    f.eventType === 'message' ? 'event: message\n' : f.eventType === 'other' ? 'event: other\n' : '';
  let text = '';
  for (const piece of pieces) {
    const data = withId(piece, id);
    const cut = f.split ? Math.floor(data.length / 2) : -1;
    const lines = cut > 0 ? `data: ${data.slice(0, cut)}\ndata: ${data.slice(cut)}\n` : `data: ${data}\n`;
    text += `: note\n${head}${lines}\n`;
  }
  return text;
}

const withId = (piece: Piece, id: unknown): string => piece.text.split(`"${ID}"`).join(json(id));

/**
 * The first piece that answers the call, as SSE events framed by `f` carry it. An event of another type carries
 * nothing. A split event's data is its two halves joined by a newline: JSON still parses when the cut falls between
 * tokens, not inside a string or a number, so the model cannot tell what the call gets (`any`).
 */
export function eventsAnswer(pieces: Piece[], f: Framing): Answer {
  if (f.eventType === 'other') return NONE;
  if (f.split) return pieces.some((p) => p.answer.kind !== 'none') ? ANY : NONE;
  return firstAnswer(pieces);
}

const firstAnswer = (pieces: Piece[]): Answer => pieces.find((p) => p.answer.kind !== 'none')?.answer ?? NONE;

/** What the client must read the call's outcome as: the first piece that answers it, if the reply can carry it. */
function expected(r: Reply, answers: (status: number) => boolean): Answer {
  if (!answers(r.status)) {
    const only = r.pieces.length === 1 ? r.pieces[0].answer : NONE;
    return r.form === 'json' && r.status !== 204 && only.kind === 'error'
      ? { ...only, kind: 'refused' }
      : NONE;
  }
  if (r.type === undefined) return NONE;
  const sse = r.form === 'sse' && r.type === 'text/event-stream';
  const isJson = r.form === 'json' && r.type.startsWith('application/json');
  if (sse) return eventsAnswer(r.pieces, r);
  if (!isJson) return NONE;
  // A JSON body is read whole: one cut or left open carries nothing.
  if (r.pieces.length !== 1 || r.ending !== 'end') return NONE;
  return firstAnswer(r.pieces);
}

export function writeReply(res: ServerResponse, r: Reply, id: unknown): void {
  res.writeHead(r.status, r.type === undefined ? {} : { 'content-type': r.type });
  if (r.status === 204) return void res.end();
  const body = r.form === 'json' ? r.pieces.map((p) => withId(p, id)).join('') : sseEvents(r.pieces, r, id);
  if (r.ending === 'end') res.end(body);
  else if (r.ending === 'cut') cut(res, body);
  else res.write(body);
  // 'open': left for the client to give up on (its request timeout), which closes it.
}

/**
 * Writes `text`, then cuts the connection once the text has left: destroyed at once, the response would drop what
 * node:http still holds of it.
 */
export function cut(res: ServerResponse, text: string): void {
  res.write(text, () => res.destroy());
}

/**
 * A call's outcome against the answer the reply carried: its result, its error's code and message, an
 * InvalidResponseError for an invalid one, and some error when none could be read.
 */
function checkOutcome(want: Answer, outcome: { result: unknown } | { error: unknown }): void {
  if (want.kind === 'any') return;
  if (want.kind === 'result') {
    assert.deepEqual(outcome, { result: JSON.parse(json(want.value)) });
    return;
  }
  assert.ok('error' in outcome, `expected an error for ${json(want)}, got ${json(outcome)}`);
  assert.ok(outcome.error instanceof Error, String(outcome.error));
  const { error } = outcome;
  // The refusal's own error, passed on as the server said it (seed 90210 found one with an empty message).
  if (
    want.kind === 'refused' &&
    error instanceof McpError &&
    error.code === want.code &&
    error.message === want.message
  )
    return;
  if (want.kind === 'error') {
    assert.ok(outcome.error instanceof McpError);
    assert.equal(outcome.error.code, want.code);
    assert.equal(outcome.error.message, want.message);
    return;
  }
  // An error of the client's own says what went wrong (the server's may say nothing).
  assert.ok(outcome.error.message.length > 0);
  if (want.kind === 'invalid')
    assert.ok(outcome.error instanceof InvalidResponseError, String(outcome.error));
}

const BOUND_MS = 20_000;

/**
 * The property of both HTTP clients: `answer` makes the server answer the next `tools/call` with a reply (undefined:
 * as a plain server would); each call settles within its bounds as the reply says (`expected`), and `session`
 * serves the next call. `answers` tells the statuses whose body the client reads for the answer.
 */
export function callsSettle(
  session: ClientSession,
  answers: (status: number) => boolean,
  answer: (reply: Reply | undefined) => void,
  runs: number,
): Promise<void> {
  return eachCallSettles(session, reply, (r) => expected(r, answers), answer, runs);
}

/** `callsSettle` for any kind of reply, given what the client must read each one as. */
export function eachCallSettles<R>(
  session: ClientSession,
  replies: fc.Arbitrary<R>,
  expected: (reply: R) => Answer,
  answer: (reply: R | undefined) => void,
  runs: number,
): Promise<void> {
  return fc.assert(
    fc.asyncProperty(replies, async (r) => {
      answer(r);
      const call = session.request('tools/call', { name: 'act', arguments: {} });
      const outcome = await within(
        call.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        BOUND_MS,
        'the call',
      );
      answer(undefined);
      checkOutcome(expected(r), outcome);
      // The reply may have ended the server's session, and the client be reconnecting: a request made meanwhile
      // fails as lost with the old session unless it may be sent again on the new one.
      const next = session.request('ping', undefined, { retryOnRestart: true });
      assert.ok(await within(next, BOUND_MS, 'the next call'));
    }),
    fuzzRuns(runs),
  );
}
