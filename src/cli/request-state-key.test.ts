import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bindingOf, RequestStateSealer } from '../server/modern/request-state.js';
import { REQUEST_STATE_SECRET_ENV, requestStateKeysFromEnv } from './request-state-key.js';

const OLD = 'o'.repeat(32);
const NEW = 'n'.repeat(32);
const bind = bindingOf({ method: 'tools/call', target: 'elicit_name', args: {} });

function sealerOf(value: string): RequestStateSealer {
  return new RequestStateSealer(requestStateKeysFromEnv({ [REQUEST_STATE_SECRET_ENV]: value }));
}

describe('MCPWIRE_REQUEST_STATE_SECRET', () => {
  test('unset or empty: no keys (each process draws its own)', () => {
    assert.equal(requestStateKeysFromEnv({}), undefined);
    assert.equal(requestStateKeysFromEnv({ [REQUEST_STATE_SECRET_ENV]: ' , ' }), undefined);
  });

  test('one secret: its key, whose id names it without revealing it, the same in every process', () => {
    const [key] = requestStateKeysFromEnv({ [REQUEST_STATE_SECRET_ENV]: OLD })!;
    assert.equal(key.secret, OLD);
    assert.match(key.id, /^e[0-9a-f]{12}$/);
    assert.ok(!key.id.includes(OLD.slice(0, 4)));
    assert.deepEqual(requestStateKeysFromEnv({ [REQUEST_STATE_SECRET_ENV]: ` ${OLD} ` }), [key]);
  });

  test('a rolling rotation refuses nothing: "old,new", then "new,old", then "new"', () => {
    // Every process is restarted at each step, one by one; at each step processes of two settings serve
    // together, and a state sealed by either opens on the other.
    const steps = [OLD, `${OLD},${NEW}`, `${NEW},${OLD}`, NEW];
    for (let i = 1; i < steps.length; i++) {
      const [before, after] = [sealerOf(steps[i - 1]), sealerOf(steps[i])];
      for (const [from, to] of [
        [before, after],
        [after, before],
      ]) {
        const opened = to.open(from.seal({ step: i }, bind), bind);
        assert.deepEqual(
          opened,
          { ok: true, payload: { step: i } },
          `step ${i}: ${steps[i - 1]} ↔ ${steps[i]}`,
        );
      }
    }
    // Once the old secret is gone, what it sealed is refused.
    assert.deepEqual(sealerOf(NEW).open(sealerOf(OLD).seal(1, bind), bind), {
      ok: false,
      reason: 'unknown-key',
    });
  });

  test('a secret under 32 bytes is refused by name when the server starts', () => {
    assert.throws(() => sealerOf(`${NEW},short`), /has 5 bytes; it needs at least 32/);
  });
});
