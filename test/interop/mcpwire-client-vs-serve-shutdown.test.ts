// A client whose server shuts down cleanly says nothing about it: mcpwire's Client with a 2025 session walks a
// call through `mcpwire serve`'s Ctrl-C (the call in flight finishes, the server exits), then closes; its DELETE
// finds nothing listening, which is no error to report (a server that is there and fails to delete still is).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';

after(killCliRuns);

test('a clean shutdown of mcpwire serve under a call in flight: the call is answered, close reports nothing', {
  timeout: 60_000,
}, async () => {
  const { run, url } = await serveDemo();
  const errors: Error[] = [];
  const client = new Client(
    { name: 'shutdown-test', version: '1.0.0' },
    { era: 'legacy', onerror: (err) => errors.push(err) },
  );
  // The shutdown ends the standalone GET stream, which the client resumes every second (the server's retry:) until
  // close: more than the default 5 attempts would allow if the shutdown is slow, as on a loaded machine.
  const session = await connectUrl(client, url, { transport: 'http', retry: { maxAttempts: 30 } });
  let interrupted = false;
  const result = await session.callTool(
    'long_running',
    { duration: 1, steps: 4 },
    {
      onprogress: () => {
        if (interrupted) return;
        interrupted = true;
        run.child.kill('SIGINT');
      },
    },
  );
  assert.ok(interrupted, 'no progress came');
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(await run.exit(15_000), 0, run.stderr());
  await session.close();
  assert.deepEqual(
    errors.map((e) => e.message),
    [],
    'the client reported an error about a server that shut down cleanly',
  );
});
