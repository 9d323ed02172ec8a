// A request cancelled while its session's child (`isolate`) is still starting: the child never gets it. The bridge
// waits for the child before it forwards; a cancellation that comes meanwhile must stop the request there, since
// nothing would tell the child of it afterwards and it would work on for no one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openSession, post, sseMessages, toolCall } from '../../src/test-support/mcp-http.js';
import { bridgeChild, serveBridge } from '../../src/test-support/served-bridge.js';
import { until } from '../../src/test-support/time-limit.js';

const MS = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'mcpwire-isolate-cancel-'));
const hold = join(dir, 'hold');
const stderr: string[] = [];
let url: string;
let close: () => Promise<void>;

before(async () => {
  ({ url, close } = await serveBridge({
    upstream: bridgeChild('--hold-while', hold),
    isolate: true,
    stderr: (line) => stderr.push(line),
    report: () => {},
  }));
});

after(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

test('a call cancelled while the child starts is never sent to it; the next call is', async () => {
  const sessionId = await openSession(url);
  writeFileSync(hold, '');
  // The session's first call starts its child, and waits in the bridge for it.
  const first = new AbortController();
  post(url, toolCall(1, 'wait', { ms: 60_000 }), { sessionId, signal: first.signal }).catch(() => {});
  try {
    await until(() => stderr.includes('held'), MS, 'the child to be started');
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'no' },
    };
    // Acted on before its 202.
    assert.equal((await post(url, cancel, { sessionId })).status, 202);
    rmSync(hold);

    const [answer] = await sseMessages(await post(url, toolCall(2, 'wait', { ms: 1 }), { sessionId }));
    assert.equal(answer.result?.content[0].text, 'waited', JSON.stringify(answer));
    // The child says when each wait begins, in the order it reads them: the cancelled one would come first.
    const waits = () => stderr.filter((line) => line.startsWith('waiting request ')).length;
    await until(() => waits() > 0, MS, 'the child to say the second wait began');
    assert.equal(waits(), 1, stderr.join('\n'));
  } finally {
    first.abort();
  }
});
