// StreamableHTTPHandler's rateLimit: requests per window and POSTs in flight per caller (an anonymous caller by its
// address), in both eras: 429 with Retry-After before the body is read, the window opening again on time, and one
// caller's use leaving another's allowance whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../test-support/manual-clock.js';
import { jsonBody, openSession, post, postFrom, toolCall } from '../../test-support/mcp-http.js';
import { modernHeaders, modernMessage, postModern } from '../../test-support/modern-http.js';
import { serveTestServer } from '../../test-support/streamable-fixture.js';

/** The status of a modern `tools/list` POSTed from 127.0.0.2: another anonymous caller. */
async function listFromElsewhere(url: string): Promise<number> {
  return (
    await postFrom('127.0.0.2', url, modernMessage(1, 'tools/list', {}, {}), modernHeaders('tools/list'))
  ).status;
}

test('past the requests of the window: 429 with Retry-After until it opens again; another caller is not held', async () => {
  const clock = new ManualClock();
  const errors: string[] = [];
  const { served } = await serveTestServer({
    clock,
    rateLimit: { requests: 3, windowMs: 60_000 },
    onerror: (err) => errors.push(err.message),
  });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await postModern(served.url, i, 'tools/list');
      assert.equal(res.status, 200);
      await res.text();
    }
    clock.advance(20_000);
    const refused = await postModern(served.url, 9, 'tools/list');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '40');
    assert.match(
      (await jsonBody(refused)).error.message,
      /^Too Many Requests: the anonymous clients at (::ffff:)?127\.0\.0\.1 sent the maximum of 3 requests in 60 s; retry in 40 s$/,
    );
    assert.ok(
      errors.some((m) => /maximum of 3 requests/.test(m)),
      'onerror hears the refusal',
    );
    assert.equal(await listFromElsewhere(served.url), 200);
    // A 2025 session's requests count too.
    const legacy = await post(served.url, toolCall(1, 'echo', { text: 'x' }));
    assert.equal(legacy.status, 429);
    await legacy.text();
    clock.advance(40_000);
    const sessionId = await openSession(served.url);
    const echo = await post(served.url, toolCall(2, 'echo', { text: 'x' }), { sessionId });
    assert.equal(echo.status, 200);
    await echo.text();
  } finally {
    await served.close();
  }
});

test('past the POSTs in flight: 429 until one ends', async () => {
  const { served, gates } = await serveTestServer({ rateLimit: { concurrent: 1 } });
  try {
    // Its answer comes once the gate opens; until then it is in flight.
    const slow = postModern(served.url, 1, 'tools/call', { name: 'wait', arguments: { gate: 'g' } });
    let refused: Response | undefined;
    for (let attempt = 0; refused === undefined; attempt++) {
      const res = await postModern(served.url, 2, 'tools/list');
      if (res.status === 429) refused = res;
      else await res.text();
      assert.ok(attempt < 200, 'the first call never counted as in flight');
    }
    assert.match(
      (await jsonBody(refused)).error.message,
      /has the maximum of 1 requests in flight; wait for one to end$/,
    );
    gates.open('g');
    await (await slow).text();
    // The server hears the end of the first response as it closes: a bounded number of tries.
    for (let attempt = 0; ; attempt++) {
      const res = await postModern(served.url, 3, 'tools/list');
      const status = res.status;
      await res.text();
      if (status === 200) break;
      assert.ok(attempt < 50, `still refused: ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    gates.open('g');
    await served.close();
  }
});
