// `mcpwire serve`'s probes for load balancers and orchestrators (the built command): /health and /ready answer
// GET and HEAD with no Host check, token or session, while /mcp keeps its checks. A bridge whose child is down is
// not ready: see serve-command.test.ts.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { type CliRun, serveDemo, stopServe } from '../../src/test-support/cli-run.js';

let run: CliRun;
let origin: URL;
before(async () => {
  const served = await serveDemo();
  run = served.run;
  origin = new URL(served.url);
});
after(() => stopServe(run));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the headers given as they are (fetch would not send a Host of our choosing). */
function ask(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: origin.hostname,
        port: origin.port,
        method,
        path,
        headers,
        signal: AbortSignal.timeout(10_000),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('GET /health: 200, ok, never cached', async () => {
  const answer = await ask('GET', '/health');
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(answer.body), { status: 'ok' });
  assert.equal(answer.headers['content-type'], 'application/json');
  assert.equal(answer.headers['cache-control'], 'no-store');
});

test('GET /ready: 200 while /mcp serves', async () => {
  const answer = await ask('GET', '/ready?probe=1');
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(answer.body), { status: 'ready' });
  assert.equal(answer.headers['retry-after'], undefined);
});

test('HEAD: the status and headers, no body', async () => {
  for (const path of ['/health', '/ready']) {
    const answer = await ask('HEAD', path);
    assert.equal(answer.status, 200, path);
    assert.equal(answer.headers['cache-control'], 'no-store', path);
    assert.equal(answer.body, '', path);
  }
});

test('another method: 405 naming GET and HEAD', async () => {
  for (const method of ['POST', 'DELETE']) {
    const answer = await ask(method, '/ready');
    assert.equal(answer.status, 405, method);
    assert.equal(answer.headers.allow, 'GET, HEAD');
    assert.match(JSON.parse(answer.body).error, /\/ready answers GET and HEAD/);
  }
});

test("a probe naming the pod's address is answered; /mcp with that Host is refused as before", async () => {
  const host = { host: '10.1.2.3:8080' };
  assert.equal((await ask('GET', '/health', host)).status, 200);
  assert.equal((await ask('GET', '/ready', host)).status, 200);
  const mcp = await ask('POST', '/mcp', {
    ...host,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  });
  assert.ok(mcp.status === 403 || mcp.status === 421, `status ${mcp.status}: ${mcp.body}`);
});

test('any other path: 404 naming the MCP endpoints and the probes', async () => {
  const answer = await ask('GET', '/healthz');
  assert.equal(answer.status, 404);
  assert.match(JSON.parse(answer.body).error.message, /serves MCP at \/mcp.*probes at \/health and \/ready/);
});
