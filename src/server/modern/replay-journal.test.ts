import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../jsonrpc/errors.js';
import { InvalidClientAnswerError } from '../client-answer.js';
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
    // What the round asked is kept to check the answer by: the method and the form's schema.
    assert.deepEqual(journal.state(undefined, undefined), {
      p: { 0: { method: ELICIT, params: { requestedSchema: ask('name?').requestedSchema } } },
    });
  });

  it('replays the answers in call order and asks only what is new', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('first?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined, undefined)), {
      [callKey(0)]: accept({ a: 1 }),
    });
    assert.deepEqual(r2.next(ELICIT, ask('first?')), accept({ a: 1 }));
    assert.equal(r2.waiting, false);
    assert.equal(r2.next(SAMPLE, { messages: [], maxTokens: 1 }), undefined);
    assert.deepEqual(Object.keys(r2.inputRequests()!), [callKey(1)]);
    const r3 = new ReplayJournal(overTheWire(r2.state({ mine: true }, undefined)), {
      [callKey(1)]: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
    });
    // The first answer came from the state, the second from this round's responses: both in order.
    assert.deepEqual(r3.next(ELICIT, ask('first?')), accept({ a: 1 }));
    assert.equal((r3.next(SAMPLE, { messages: [], maxTokens: 1 }) as { role: string }).role, 'assistant');
    assert.equal(r3.waiting, false);
    assert.equal(r3.inputRequests(), undefined);
    assert.deepEqual(overTheWire(r3.state({ mine: true }, undefined))!.u, { mine: true });
  });

  it('makes two calls of one turn one round with two keys', () => {
    const journal = new ReplayJournal(undefined, undefined);
    journal.next(ELICIT, ask('a?'));
    journal.next(ROOTS, undefined);
    assert.deepEqual(journal.inputRequests(), {
      [callKey(0)]: { method: ELICIT, params: ask('a?') },
      [callKey(1)]: { method: ROOTS },
    });
    const next = new ReplayJournal(overTheWire(journal.state(undefined, undefined)), {
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
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined, undefined)), {
      [callKey(1)]: { roots: [] },
    });
    assert.equal(r2.next(ELICIT, ask('a?')), undefined);
    assert.deepEqual(r2.next(ROOTS, undefined), { roots: [] });
    assert.deepEqual(Object.keys(r2.inputRequests()!), [callKey(0)]);
  });

  it('ignores responses under keys it never asked', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined, undefined)), {
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
        () =>
          new ReplayJournal(overTheWire(r1.state(undefined, undefined)), { [callKey(0)]: wrong as unknown }),
        (err: unknown) => {
          assert.ok(err instanceof InvalidClientAnswerError);
          assert.equal(err.code, ErrorCode.InvalidParams);
          assert.equal(err.method, method);
          assert.ok(err.field.startsWith('inputResponses["mcpwire.0"]'), err.field);
          assert.deepEqual(err.data, { method, field: err.field });
          return true;
        },
      );
    });
  }

  it('checks an answer against the schema sealed in the state, not against what the handler asks again', () => {
    const age = { type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'] };
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, { message: 'age?', requestedSchema: age });
    const sealed = overTheWire(r1.state(undefined, undefined));
    assert.throws(
      () => new ReplayJournal(sealed, { [callKey(0)]: accept({ age: 'forty' }) }),
      (err: unknown) =>
        err instanceof InvalidClientAnswerError &&
        err.field === 'inputResponses["mcpwire.0"].content.age' &&
        err.problem === 'must be an integer',
    );
    assert.throws(
      () => new ReplayJournal(sealed, { [callKey(0)]: accept({}) }),
      /inputResponses\["mcpwire\.0"\]\.content\.age is required/,
    );
    // A handler that asks something looser on the retry is still answered only with what fits the first question.
    const r2 = new ReplayJournal(sealed, { [callKey(0)]: accept({ age: 7 }) });
    assert.deepEqual(r2.next(ELICIT, ask('age?')), accept({ age: 7 }));
  });

  it('leaves out the content of a decline, a cancel and a URL-mode accept', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    r1.next(ELICIT, { mode: 'url', message: 'b?', elicitationId: 'e1', url: 'https://example.com/' });
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined, undefined)), {
      [callKey(0)]: { action: 'decline', content: { smuggled: true } },
      [callKey(1)]: { action: 'accept', content: { smuggled: true } },
    });
    assert.deepEqual(r2.next(ELICIT, ask('a?')), { action: 'decline' });
    assert.deepEqual(r2.next(ELICIT, ask('b?')), { action: 'accept' });
  });

  it('reads a state sealed by an earlier release, which kept only the method asked', () => {
    const r2 = new ReplayJournal({ p: { 0: ELICIT } }, { [callKey(0)]: accept({ any: 'thing' }) });
    assert.deepEqual(r2.next(ELICIT, ask('a?')), accept({ any: 'thing' }));
    assert.throws(() => new ReplayJournal({ p: { 0: ELICIT } }, { [callKey(0)]: accept({ a: {} }) }));
  });

  it("keeps the handler's own requests and gives back only their checked answers", () => {
    const own = {
      city: {
        method: ELICIT,
        params: { message: 'City?', requestedSchema: { type: 'object', properties: {} } },
      },
      model: {
        method: SAMPLE,
        params: { messages: [], maxTokens: 5, tools: [{ name: 'weather', inputSchema: { type: 'object' } }] },
      },
    } as const;
    const sealed = overTheWire(new ReplayJournal(undefined, undefined).state({ step: 1 }, own));
    assert.deepEqual(sealed?.q?.model, { method: SAMPLE, params: { tools: [{ name: 'weather' }] } });
    const reply = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'weather', input: {} }],
      model: 'm',
    };
    const next = new ReplayJournal(sealed, {
      city: { action: 'cancel' },
      model: reply,
      unasked: { action: 'accept', content: 'junk' },
    });
    assert.deepEqual(next.ownAnswers, { city: { action: 'cancel' }, model: reply });
    // A tool the request did not offer is no answer to it.
    const wrongTool = { ...reply, content: [{ type: 'tool_use', id: 't1', name: 'rm', input: {} }] };
    assert.throws(
      () => new ReplayJournal(sealed, { model: wrongTool }),
      /inputResponses\.model\.content\[0\]\.name must name a tool the request offered \("weather"\)/,
    );
    // Without the state nothing was asked: answers sent anyway reach no handler.
    assert.equal(new ReplayJournal(undefined, { city: { action: 'cancel' } }).ownAnswers, undefined);
  });

  it('fails clearly when the handler calls another method where an answer is recorded', () => {
    const r1 = new ReplayJournal(undefined, undefined);
    r1.next(ELICIT, ask('a?'));
    const r2 = new ReplayJournal(overTheWire(r1.state(undefined, undefined)), { [callKey(0)]: accept({}) });
    assert.throws(() => r2.next(ROOTS, undefined), /called roots\/list where it called elicitation\/create/);
  });

  it('carries nothing when nothing was asked, answered or kept', () => {
    const journal = new ReplayJournal(undefined, undefined);
    assert.equal(journal.state(undefined, undefined), undefined);
    assert.deepEqual(journal.state({ step: 2 }, undefined), { u: { step: 2 } });
  });
});
