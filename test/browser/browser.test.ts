// mcpwire's client in a real browser: page.ts, bundled with esbuild from `mcpwire/browser`, is served from one
// loopback origin and driven in headless Chromium (Debian's package, through playwright-core) against the built
// `mcpwire serve --cors-origin` on another: it lists tools, shows a call's progress, uses the legacy HTTP+SSE
// transport, has a call's stream cut by a proxy and resumed, and, served from an origin not allowed, fails as
// CORS says. Screenshots go to test/browser/output/ (ignored by git).
//
// Without /usr/bin/chromium the test is skipped, saying how to install it; with MCPWIRE_REQUIRE_BROWSER=1 (CI)
// it fails instead. Needs `npm run build` first (npm test does it).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { bundleForBrowser } from '../../src/test-support/browser-bundle.js';
import { chromiumMissing, launchChromium } from '../../src/test-support/chromium.js';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { type CuttingProxy, startCuttingProxy } from '../../src/test-support/cutting-proxy.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';
import { until } from '../../src/test-support/time-limit.js';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const skip = chromiumMissing('test/browser/browser.test.ts');

const PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>mcpwire</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 24px; max-width: 880px; }
  section { border: 1px solid #ccc; border-radius: 6px; padding: 4px 16px; margin: 12px 0; }
  h2 { font-size: 16px; } .status { font-weight: 600; } progress { width: 100%; }
  li { font-family: ui-monospace, monospace; font-size: 13px; }
</style></head>
<body><h1>mcpwire in a browser</h1><p id="origin"></p>
<script>document.getElementById('origin').textContent = 'This page: ' + location.origin;</script>
<script type="module" src="/page.js"></script></body></html>`;

/** A static server for the page: `/` the HTML, `/page.js` the bundle. */
function servePage(bundle: string): Promise<LoopbackServer> {
  return listenLoopback((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
    else if (path === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    else res.writeHead(404).end();
  });
}

let allowed: LoopbackServer;
let refused: LoopbackServer;
let serve: CliRun;
let mcpUrl: string;
let proxy: CuttingProxy;
let context: BrowserContext;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const consoleLines: string[] = [];
const pageErrors: string[] = [];

before(async () => {
  if (skip) return;
  // The page's text is the entry: imported, it would be dropped, as package.json says no module has side effects.
  const { code } = await bundleForBrowser(readFileSync(new URL('./page.ts', import.meta.url), 'utf8'));
  allowed = await servePage(code);
  refused = await servePage(code);
  const started = await serveDemo(['--cors-origin', `http://127.0.0.1:${allowed.port}`]);
  serve = started.run;
  mcpUrl = started.url;
  // Past the priming event and a couple of progress events, in the middle of one.
  proxy = await startCuttingProxy(Number(new URL(mcpUrl).port), '"long_running"', 500);
  browser = await launchChromium({ width: 960, height: 1200 });
  context = browser.context;
  mkdirSync(OUTPUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  killCliRuns();
  await Promise.all([allowed?.close(), refused?.close(), proxy?.close()]);
});

/** Opens the page from `origin`'s server, its scenarios ready. */
async function open(from: LoopbackServer): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('pageerror', (err) => pageErrors.push(err.message));
  const query = new URLSearchParams({ server: mcpUrl, proxy: `http://127.0.0.1:${proxy.port}/mcp` });
  await page.goto(`http://127.0.0.1:${from.port}/?${query}`);
  await page.waitForFunction(() => 'scenarios' in globalThis, undefined, { timeout: 20_000 });
  return page;
}

type Scenario = 'listTools' | 'callWithProgress' | 'legacySse' | 'resumed' | 'refused';

function play<T>(page: Page, scenario: Scenario): Promise<T> {
  return page.evaluate(
    (name) =>
      (globalThis as unknown as Record<string, Record<string, () => Promise<unknown>>>).scenarios[name](),
    scenario,
  ) as Promise<T>;
}

const steps = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test('in Chromium, from an allowed origin: tools, progress on the page, HTTP+SSE, a cut stream resumed', {
  skip,
  timeout: 120_000,
}, async () => {
  const page = await open(allowed);

  const listed = await play<{ era: string; tools: string[] }>(page, 'listTools');
  assert.equal(listed.era, 'modern');
  for (const name of ['echo', 'add', 'long_running']) assert.ok(listed.tools.includes(name), name);

  const called = await play<{ progress: number[]; text: string }>(page, 'callWithProgress');
  assert.deepEqual(called.progress, steps(5));
  assert.equal(called.text, 'Long-running operation completed: 5 steps in 2 s');
  // What the page shows: a line per step and the bar full.
  assert.equal(await page.locator('#progress li').count(), 5);
  assert.equal(
    await page.locator('#progress progress').evaluate((bar) => (bar as unknown as { value: number }).value),
    5,
  );
  assert.equal(await page.locator('#progress .status').textContent(), called.text);

  assert.equal(await play<string>(page, 'legacySse'), 'Echo: from a page');

  const resumed = await play<{ progress: number[]; text: string; resumedFrom: string[] }>(page, 'resumed');
  assert.ok(proxy.wasCut(), 'the proxy cut the call');
  assert.ok(resumed.resumedFrom.length > 0, 'the page saw its client resume with Last-Event-ID');
  assert.ok(
    proxy.seen.some((r) => r.method === 'GET' && r.lastEventId === resumed.resumedFrom[0]),
    `the resuming GET went through: ${JSON.stringify(proxy.seen)}`,
  );
  assert.deepEqual(resumed.progress, steps(10), 'every progress notification once, none lost');
  assert.equal(resumed.text, 'Long-running operation completed: 10 steps in 2 s');
  assert.match((await page.locator('#resumed .status').textContent()) ?? '', /legacy era, resumed \d+×/);

  await page.screenshot({ path: join(OUTPUT, 'browser.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
  assert.ok(!consoleLines.some((line) => /CORS/.test(line)), consoleLines.join('\n'));
  process.stderr.write(`screenshot: ${join(OUTPUT, 'browser.png')}\n`);
});

test('in Chromium, from an origin not allowed: the preflight is refused and the connect fails as CORS says', {
  skip,
  timeout: 60_000,
}, async () => {
  const page = await open(refused);
  const outcome = await play<{ name: string; message: string }>(page, 'refused');
  assert.equal(outcome.name, 'StreamableHTTPError');
  assert.match(outcome.message, /server\/discover .*failed: Failed to fetch/);
  const origin = `http://127.0.0.1:${refused.port}`;
  assert.ok(
    consoleLines.some((line) => line.includes(`from origin '${origin}' has been blocked by CORS policy`)),
    `Chromium said why: ${consoleLines.join('\n')}`,
  );
  // The server's report of the refused preflight reaches its stderr when the child's pipe is next read.
  const said =
    /Forbidden: pages of the origin "http:\/\/127\.0\.0\.1:\d+" may not call this endpoint \(CORS\)/;
  await until(() => said.test(serve.stderr()), 10_000, `the server to log the refusal: ${serve.stderr()}`);
  await page.screenshot({ path: join(OUTPUT, 'refused.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
});
