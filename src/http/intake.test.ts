// HTTPIntake.read: a request's message reaches `serve` once, a refused one never does, and whatever goes wrong
// after the body was read (a throw, a rejection, a refusal that throws) reaches `failed` instead of escaping.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HTTPIntake, type ParsedBody } from './intake.js';
import { fromWeb } from './web-adapter.js';

const MESSAGE = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/** What one `read` did: the messages served, the failures, the refusals (status, message). */
function reading(
  body: string,
  serve: (parsed: ParsedBody) => void | Promise<void> = () => {},
  options: { contentType?: string; limit?: number; refuseThrows?: boolean } = {},
) {
  const served: ParsedBody[] = [];
  const failures: unknown[] = [];
  const refusals: [number, string][] = [];
  const intake = new HTTPIntake(
    undefined,
    undefined,
    undefined,
    options.limit ?? 1024,
    (_ex, status, message) => {
      refusals.push([status, message]);
      if (options.refuseThrows) throw new Error('the refusal failed');
    },
  );
  const { exchange } = fromWeb(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      body,
      headers: { 'content-type': options.contentType ?? 'application/json' },
    }),
  );
  const finished = new Promise<void>((resolve) => {
    intake.read(
      exchange,
      (parsed) => {
        served.push(parsed);
        const outcome = serve(parsed);
        resolve();
        return outcome;
      },
      (err) => {
        failures.push(err);
        resolve();
      },
    );
    // A refusal calls neither: give the body's read a few turns to finish.
    setTimeout(resolve, 50);
  });
  return { served, failures, refusals, finished };
}

describe('HTTPIntake.read', () => {
  test('a message that parsed is served once, and nothing fails', async () => {
    const r = reading(MESSAGE);
    await r.finished;
    assert.equal(r.served.length, 1);
    assert.equal(r.served[0].kind, 'message');
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.refusals, []);
  });

  test('refused requests are answered and never served: media type, size, JSON', async () => {
    for (const [r, status] of [
      [reading(MESSAGE, undefined, { contentType: 'text/plain' }), 415],
      [reading(MESSAGE, undefined, { limit: 10 }), 413],
      [reading('{"jsonrpc":'), 400],
    ] as const) {
      await r.finished;
      assert.deepEqual(r.served, []);
      assert.deepEqual(r.failures, []);
      assert.deepEqual(
        r.refusals.map(([s]) => s),
        [status],
      );
    }
  });

  test('what serving throws, or its promise rejects with, goes to failed', async () => {
    const thrown = reading(MESSAGE, () => {
      throw new Error('serve threw');
    });
    await thrown.finished;
    const rejected = reading(MESSAGE, () => Promise.reject(new Error('serve rejected')));
    await rejected.finished;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      [...thrown.failures, ...rejected.failures].map((e) => (e as Error).message),
      ['serve threw', 'serve rejected'],
    );
  });

  test('a refusal that throws goes to failed, before the body is read and after', async () => {
    const early = reading(MESSAGE, undefined, { contentType: 'text/plain', refuseThrows: true });
    const late = reading('not json', undefined, { refuseThrows: true });
    await Promise.all([early.finished, late.finished]);
    for (const r of [early, late]) {
      assert.deepEqual(r.served, []);
      assert.deepEqual(
        r.failures.map((e) => (e as Error).message),
        ['the refusal failed'],
      );
    }
  });
});
