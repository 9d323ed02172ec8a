import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { callKey, type JournalState, ReplayJournal } from './replay-journal.js';

const ELICIT = 'elicitation/create';
const SAMPLE = 'sampling/createMessage';
const ROOTS = 'roots/list';
const ask = (message: string) => ({ message, requestedSchema: { type: 'object', properties: {} } });
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

/** What the client gets back after sealing: the state goes through JSON, so call numbers become strings. */
const overTheWire = (state: JournalState | undefined): JournalState | undefined =>
  state === undefined ? undefined : JSON.parse(JSON.stringify(state));

describe('ReplayJournal', () => {
  it('asks the first unanswered call and records it as the pending call of the round', () => {
    const journal = new ReplayJournal(undefined, undefined);
    assert.equal(journal.waiting, false);
    assert.equal(journal.next(ELICIT, ask('name?')), undefined);
    assert.equal(journal.waiting, true);
    assert.deepEqual(journal.inputRequests(), { [callKey(0)]: { method: ELICIT, params: ask('name?') } });
    assert.deepEqual(journal.state(undefined), { p: { 0: ELICIT } });
  });

  it('replays the answers in call order and asks only what is new', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('first?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined)), { [callKey(0)]: accept({ a: 1 }) });
    assert.deepEqual(r2.next(ELICIT, ask('first?')), accept({ a: 1 }));
    assert.equal(r2.waiting, false);
    assert.equal(r2.next(SAMPLE, { messages: [], maxTokens: 1 }), undefined);
    assert.deepEqual(Object.keys(r2.inputRequests()!), [callKey(1)]);
    const r3 = new ReplayJournal(overTheWire(r2.state({ mine: true })), {
      [callKey(1)]: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
    });
    // The first answer came from the state, the second from this round's responses: both in order.
    assert.deepEqual(r3.next(ELICIT, ask('first?')), accept({ a: 1 }));
    assert.equal((r3.next(SAMPLE, { messages: [], maxTokens: 1 }) as { role: string }).role, 'assistant');
    assert.equal(r3.waiting, false);
    assert.equal(r3.inputRequests(), undefined);
    assert.deepEqual(overTheWire(r3.state({ mine: true }))!.u, { mine: true });
  });

  it('makes two calls of one turn one round with two keys', () => {
    const journal = new ReplayJournal(undefined, undefined);
    journal.next(ELICIT, ask('a?'));
    journal.next(ROOTS, undefined);
    assert.deepEqual(journal.inputRequests(), {
      [callKey(0)]: { method: ELICIT, params: ask('a?') },
      [callKey(1)]: { method: ROOTS },
    });
    const next = new ReplayJournal(overTheWire(journal.state(undefined)), {
      [callKey(0)]: accept({}),
      [callKey(1)]: { roots: [] },
    });
    assert.deepEqual(next.next(ELICIT, ask('a?')), accept({}));
    assert.deepEqual(next.next(ROOTS, undefined), { roots: [] });
    assert.equal(next.waiting, false);
  });

  it('asks again a call the client left unanswered, under the same key', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    r1.next(ROOTS, undefined);
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined)), { [callKey(1)]: { roots: [] } });
    assert.equal(r2.next(ELICIT, ask('a?')), undefined);
    assert.deepEqual(r2.next(ROOTS, undefined), { roots: [] });
    assert.deepEqual(Object.keys(r2.inputRequests()!), [callKey(0)]);
  });

  it('ignores responses under keys it never asked', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined)), {
      [callKey(0)]: accept({}),
      [callKey(7)]: 'junk',
      other: { anything: true },
    });
    assert.deepEqual(r2.next(ELICIT, ask('a?')), accept({}));
    assert.equal(r2.next(ELICIT, ask('b?')), undefined);
  });

  for (const [method, wrong] of [
    [ELICIT, { action: 'maybe' }],
    [ELICIT, { jsonrpc: '2.0', id: 1, result: accept({}) }],
    [SAMPLE, { role: 'assistant' }],
    [ROOTS, { roots: 'none' }],
    [ROOTS, [1, 2]],
    [ELICIT, null],
  ] as const) {
    it(`refuses ${JSON.stringify(wrong)} as the answer to ${method} with -32602 naming its key`, () => {
      const r1 = new ReplayJournal(undefined, undefined);
      r1.next(method, undefined);
      assert.throws(
        () => new ReplayJournal(overTheWire(r1.state(undefined)), { [callKey(0)]: wrong as unknown }),
        (err: unknown) => {
          assert.ok(err instanceof McpError);
          assert.equal(err.code, ErrorCode.InvalidParams);
          assert.deepEqual(err.data, { key: callKey(0) });
          assert.match(err.message, /inputResponses\["mcpwire\.0"\]/);
          return true;
        },
      );
    });
  }

  it('fails clearly when the handler calls another method where an answer is recorded', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined)), { [callKey(0)]: accept({}) });
    assert.throws(() => r2.next(ROOTS, undefined), /called roots\/list where it called elicitation\/create/);
  });

  it('carries nothing when nothing was asked, answered or kept', () => {
    const journal = new ReplayJournal(undefined, undefined);
    assert.equal(journal.state(undefined), undefined);
    assert.deepEqual(journal.state({ step: 2 }), { u: { step: 2 } });
  });
});
