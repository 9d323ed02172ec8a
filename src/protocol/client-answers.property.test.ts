// Hostile answers to a server's requests (issue 21): whatever a client sends, the checker never throws, lets
// through only what fits the request (judged by ajv, a full JSON Schema validator), keeps every answer that
// fits, and decides the same from the reduced question a server keeps in its sealed requestState.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  anyContent,
  fittingContent,
  fittingValue,
  formSchema,
  hasFormat,
  judge,
  propertySchema,
} from '../test-support/elicitation-arbitraries.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { checkClientAnswer, questionOf } from './client-answers.js';
import { fieldFault, STRING_FORMATS } from './elicitation-content.js';

const ELICIT = 'elicitation/create';
const SAMPLE = 'sampling/createMessage';
const ROOTS = 'roots/list';

const action = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('accept', 'decline', 'cancel') },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 0 }) },
);

/** An ElicitResult as a hostile or careless client may send it. */
const elicitResult = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 6,
    arbitrary: fc.record(
      { action, content: anyContent, _meta: fc.constantFrom({}, 'x') },
      { requiredKeys: ['action'] },
    ),
  },
);

const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) ?? undefined;

describe('checkClientAnswer over arbitrary answers', () => {
  test('never throws, whatever the method, params and result', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(ELICIT, SAMPLE, ROOTS, 'ping'),
        fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.anything(),
        (method, params, result) => {
          checkClientAnswer(method, params, result);
        },
      ),
      fuzzRuns(500),
    );
  });

  test('an elicitation answer it lets through fits the schema; one that fits is let through unchanged', () => {
    fc.assert(
      fc.property(formSchema, elicitResult, (schema, result) => {
        const fits = judge(schema);
        const checked = checkClientAnswer(ELICIT, { message: 'm', requestedSchema: schema }, result);
        const answer = result as { action?: unknown; content?: unknown };
        const wellFormed =
          typeof result === 'object' &&
          result !== null &&
          !Array.isArray(result) &&
          ['accept', 'decline', 'cancel'].includes(answer.action as string) &&
          (answer as { _meta?: unknown })._meta !== 'x';
        if (checked.ok) {
          const value = checked.value as { action: string; content?: unknown };
          assert.ok(wellFormed);
          if (value.action === 'accept') assert.ok(fits(value.content ?? {}), JSON.stringify(fits.errors));
          else assert.equal(value.content, undefined, 'a decline or cancel carries no content');
        } else if (wellFormed && answer.action === 'accept' && !hasFormat(schema)) {
          // Formats aside, the checker refuses only what the judge refuses. Only content left out reads as empty:
          // `content: null` is no form's values (seed 4242 found the oracle reading it as `{}`).
          assert.equal(
            fits(answer.content === undefined ? {} : answer.content),
            false,
            `${checked.at} ${checked.problem}`,
          );
        }
      }),
      fuzzRuns(1500),
    );
  });

  test('every form answer generated from its schema is accepted as it is, formats included', () => {
    fc.assert(
      fc.property(
        formSchema.chain((schema) => fc.tuple(fc.constant(schema), fittingContent(schema))),
        ([schema, content]) => {
          const result = { action: 'accept', content };
          const checked = checkClientAnswer(ELICIT, { message: 'm', requestedSchema: schema }, result);
          assert.ok(checked.ok, checked.ok ? '' : `${checked.at} ${checked.problem}`);
          assert.equal(checked.value, result);
        },
      ),
      fuzzRuns(1000),
    );
  });

  test('each generated value of a formatted string is accepted (email, uri, date, date-time)', () => {
    for (const format of Object.keys(STRING_FORMATS)) {
      fc.assert(
        fc.property(fittingValue({ type: 'string', format }), (text) => {
          assert.equal(fieldFault({ type: 'string', format }, text), undefined, `${format}: ${String(text)}`);
        }),
        fuzzRuns(300),
      );
    }
  });

  test('checking against questionOf(params), as a 2026 server does after a round, decides as the whole params', () => {
    const tool = fc.record({
      name: fc.oneof(fc.constantFrom('weather', 'rm'), fc.jsonValue({ maxDepth: 0 })),
    });
    const samplingParams = fc.record(
      { messages: fc.constant([]), maxTokens: fc.nat(), tools: fc.array(tool, { maxLength: 3 }) },
      { requiredKeys: ['messages', 'maxTokens'] },
    );
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string() }),
      fc.record({
        type: fc.constant('tool_use'),
        id: fc.string(),
        name: fc.constantFrom('weather', 'rm'),
        input: fc.constant({}),
      }),
      fc.jsonValue({ maxDepth: 1 }),
    );
    const samplingResult = fc.record(
      {
        role: fc.constantFrom('assistant', 'user', 'x'),
        content: fc.oneof(block, fc.array(block, { maxLength: 3 })),
        model: fc.oneof(fc.string(), fc.integer()),
      },
      { requiredKeys: [] },
    );
    const elicitParams = fc.oneof(
      formSchema.map((requestedSchema) => ({ message: 'm', requestedSchema })),
      fc.constant({ mode: 'url', message: 'm', elicitationId: 'e', url: 'https://x.example/' }),
    );
    const cases = fc.oneof(
      fc.tuple(fc.constant(SAMPLE), samplingParams as fc.Arbitrary<Record<string, unknown>>, samplingResult),
      fc.tuple(fc.constant(ELICIT), elicitParams as fc.Arbitrary<Record<string, unknown>>, elicitResult),
      fc.tuple(fc.constant(ROOTS), fc.constant(undefined), fc.jsonValue()),
    );
    fc.assert(
      fc.property(cases, ([method, params, result]) => {
        const kept = overTheWire(questionOf(method, params));
        assert.deepEqual(checkClientAnswer(method, kept, result), checkClientAnswer(method, params, result));
      }),
      fuzzRuns(1000),
    );
  });

  test('a sampling or roots answer it lets through has the shape of its result', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        for (const result of [a, { roots: a }, { role: 'assistant', content: a, model: b }]) {
          const roots = checkClientAnswer(ROOTS, undefined, result);
          if (roots.ok) {
            for (const root of (roots.value as { roots: { uri: unknown }[] }).roots) {
              assert.match(String(root.uri), /^file:\/\//i);
            }
          }
          const sampled = checkClientAnswer(SAMPLE, { messages: [], maxTokens: 1 }, result);
          if (sampled.ok) {
            const value = sampled.value as { role: unknown; model: unknown; content: unknown };
            assert.ok(value.role === 'assistant' || value.role === 'user');
            assert.equal(typeof value.model, 'string');
            assert.ok(typeof value.content === 'object' && value.content !== null);
          }
        }
      }),
      fuzzRuns(1000),
    );
  });

  test('a single property refuses exactly what the judge refuses, formats aside', () => {
    fc.assert(
      fc.property(propertySchema, anyContent, (property, value) => {
        const schema = { type: 'object' as const, properties: { x: property } };
        if (hasFormat(schema)) return;
        const fits = judge(schema)({ x: value });
        assert.equal(fieldFault(property, value) === undefined, fits, JSON.stringify({ property, value }));
      }),
      fuzzRuns(1500),
    );
  });
});
