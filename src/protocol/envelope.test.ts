import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { type EnvelopeProblem, envelopeClaim, MetaKey, readEnvelope } from './envelope.js';
import { LOGGING_LEVELS } from './types.js';

const V = MetaKey.ProtocolVersion;
const C = MetaKey.ClientCapabilities;

function withMeta(meta: Record<string, unknown>): Record<string, unknown> {
  return { name: 'echo', _meta: meta };
}

function expectProblem(params: unknown, key: string, kind: 'missing' | 'invalid'): EnvelopeProblem {
  const result = readEnvelope(params);
  assert.ok('problem' in result, 'expected a problem, got ' + JSON.stringify(result));
  assert.equal(result.key, key);
  assert.equal(result.problem, kind);
  return result;
}

describe('envelopeClaim', () => {
  test('is undefined only when no version key is present', () => {
    assert.equal(envelopeClaim(undefined), undefined);
    assert.equal(envelopeClaim({}), undefined);
    assert.equal(envelopeClaim({ _meta: {} }), undefined);
    assert.equal(envelopeClaim({ _meta: 'x' }), undefined);
    assert.equal(envelopeClaim([1, 2]), undefined);
    assert.equal(envelopeClaim({ _meta: { progressToken: 1 } }), undefined);
  });

  test('returns any present value as sent, so a broken claim still reads as modern', () => {
    assert.equal(envelopeClaim({ _meta: { [V]: '2026-07-28' } }), '2026-07-28');
    assert.equal(envelopeClaim({ _meta: { [V]: null } }), null);
    assert.equal(envelopeClaim({ _meta: { [V]: 7 } }), 7);
    assert.deepEqual(envelopeClaim({ _meta: { [V]: {} } }), {});
  });
});

describe('readEnvelope', () => {
  test('reads a full envelope, keeping the request objects', () => {
    const caps = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/ui': {} } };
    const info = { name: 'curl', version: '1' };
    const result = readEnvelope(
      withMeta({ [V]: '2026-07-28', [C]: caps, [MetaKey.ClientInfo]: info, [MetaKey.LogLevel]: 'info' }),
    );
    assert.ok(!('problem' in result));
    assert.equal(result.protocolVersion, '2026-07-28');
    assert.equal(result.clientCapabilities, caps);
    assert.equal(result.clientInfo, info);
    assert.equal(result.logLevel, 'info');
  });

  test('clientInfo and logLevel are optional; unknown keys and members pass', () => {
    const result = readEnvelope(
      withMeta({ [V]: 'v999.0.0', [C]: { vendor: 1, roots: { x: 1 } }, other: [] }),
    );
    assert.ok(!('problem' in result));
    assert.equal(result.clientInfo, undefined);
    assert.equal(result.logLevel, undefined);
    assert.equal(result.protocolVersion, 'v999.0.0');
  });

  test('every logging level is accepted', () => {
    for (const level of LOGGING_LEVELS) {
      const result = readEnvelope(withMeta({ [V]: '2026-07-28', [C]: {}, [MetaKey.LogLevel]: level }));
      assert.ok(!('problem' in result) && result.logLevel === level);
    }
  });

  test('a missing capabilities key gets the message the wire carries', () => {
    const p = expectProblem(withMeta({ [V]: '2026-07-28' }), C, 'missing');
    assert.equal(
      p.message,
      'Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing',
    );
  });

  test('the version is checked first, then capabilities, clientInfo, logLevel', () => {
    expectProblem(undefined, V, 'missing');
    expectProblem({}, V, 'missing');
    expectProblem(withMeta({}), V, 'missing');
    expectProblem(withMeta({ [C]: {} }), V, 'missing');
    expectProblem(withMeta({ [V]: '' }), V, 'invalid');
    expectProblem(withMeta({ [V]: 20260728, [C]: {} }), V, 'invalid');
    expectProblem(withMeta({ [V]: null, [C]: {} }), V, 'invalid');
    expectProblem(withMeta({ [V]: 'x', [C]: 'all' }), C, 'invalid');
    expectProblem(withMeta({ [V]: 'x', [C]: [] }), C, 'invalid');
    expectProblem(withMeta({ [V]: 'x', [C]: null }), C, 'invalid');
    expectProblem(
      withMeta({ [V]: 'x', [C]: {}, [MetaKey.ClientInfo]: 'curl' }),
      MetaKey.ClientInfo,
      'invalid',
    );
    expectProblem(
      withMeta({ [V]: 'x', [C]: {}, [MetaKey.ClientInfo]: { name: 'c' } }),
      MetaKey.ClientInfo,
      'invalid',
    );
    expectProblem(
      withMeta({ [V]: 'x', [C]: {}, [MetaKey.LogLevel]: 'verbose' }),
      MetaKey.LogLevel,
      'invalid',
    );
    expectProblem(withMeta({ [V]: 'x', [C]: {}, [MetaKey.LogLevel]: 'INFO' }), MetaKey.LogLevel, 'invalid');
    expectProblem({ _meta: [] }, '_meta', 'invalid');
    expectProblem({ _meta: 'x' }, '_meta', 'invalid');
  });

  test('known capability members must be objects, down to the settings the server reads', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ roots: true }, '.roots must be an object'],
      [{ sampling: [] }, '.sampling must be an object'],
      [{ elicitation: 'form' }, '.elicitation must be an object'],
      [{ experimental: 1 }, '.experimental must be an object'],
      [{ extensions: null }, '.extensions must be an object'],
      [{ sampling: { tools: true } }, '.sampling.tools must be an object'],
      [{ sampling: { context: 'x' } }, '.sampling.context must be an object'],
      [{ elicitation: { url: true } }, '.elicitation.url must be an object'],
      [{ elicitation: { form: [] } }, '.elicitation.form must be an object'],
      [{ experimental: { thing: true } }, '.experimental["thing"] must be an object'],
      [
        { extensions: { 'io.modelcontextprotocol/tasks': 1 } },
        '.extensions["io.modelcontextprotocol/tasks"]',
      ],
    ];
    for (const [caps, detail] of bad) {
      const p = expectProblem(withMeta({ [V]: '2026-07-28', [C]: caps }), C, 'invalid');
      assert.ok(p.message.includes(detail), p.message);
    }
  });

  test('never throws, and answers an envelope or a problem naming a key, on any input', () => {
    const keys = fc.constantFrom(...Object.values(MetaKey), '_meta', 'x');
    const meta = fc.dictionary(keys, fc.anything());
    const params = fc.oneof(
      fc.anything(),
      meta.map((m) => ({ _meta: m })),
    );
    fc.assert(
      fc.property(params, (p) => {
        const result = readEnvelope(p);
        if ('problem' in result) {
          assert.ok(result.message.startsWith('Invalid _meta envelope for protocol revision 2026-07-28: '));
          assert.ok(result.message.includes(result.key));
        } else {
          assert.equal(typeof result.protocolVersion, 'string');
          assert.equal(result.protocolVersion, envelopeClaim(p));
        }
      }),
    );
  });

  test('an envelope is read exactly when the version is a non-empty string and capabilities an object', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (version, caps) => {
        const result = readEnvelope({ _meta: { [V]: version, [C]: caps } });
        const plainCaps = typeof caps === 'object' && caps !== null && !Array.isArray(caps);
        if (typeof version !== 'string' || version === '') assert.equal((result as EnvelopeProblem).key, V);
        else if (!plainCaps) assert.equal((result as EnvelopeProblem).key, C);
      }),
    );
  });
});
