// MCP Apps in a real browser: a host page (apps-host.ts: mcpwire/browser's client and the ext-apps AppBridge) on
// one loopback origin, `mcpwire serve --cors-origin` on another, an App-built view (apps-view.ts) on a third, all
// bundled with esbuild and driven in headless Chromium, in both eras. The demo's counter view (its HTML read from
// the server, rendered sandboxed) shows the tool's result and counts up through the host; the App-built view gets
// the tool's input and result, calls the tool meant for views, and is refused the one meant only for the model.
// Screenshots go to test/browser/output/. Skipped without /usr/bin/chromium unless MCPWIRE_REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { bundleForBrowser } from '../../src/test-support/browser-bundle.js';
import { chromiumMissing, launchChromium } from '../../src/test-support/chromium.js';
import { killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';

const OUTPUT = fileURLToPath(new URL('./output/', import.meta.url));
const skip = chromiumMissing('test/browser/apps.test.ts');

const HOST_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>mcpwire apps host</title>
<style>body{font:15px system-ui,sans-serif;margin:24px;max-width:880px}iframe{width:100%;height:160px;border:1px solid #ccc}</style>
</head><body><h1>An MCP Apps host on mcpwire</h1><ul id="log"></ul><script type="module" src="/host.js"></script></body></html>`;
const VIEW_HTML = `<!doctype html><html><head><meta charset="utf-8"></head><body>
<p>input <span id="input"></span></p><p>count <span id="count"></span></p><p>after +1 <span id="increment"></span></p>
<p>reset <span id="refused"></span></p><p id="connected"></p><script type="module" src="/view.js"></script></body></html>`;

/** Serves `files` by path; scripts readable from any origin (a sandboxed view's is opaque). */
function serveFiles(files: Record<string, [string, string]>): Promise<LoopbackServer> {
  return listenLoopback((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (file === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': file[0], 'access-control-allow-origin': '*' }).end(file[1]);
  });
}

let hostSite: LoopbackServer;
let viewSite: LoopbackServer;
let mcpUrl: string;
let context: BrowserContext;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const pageErrors: string[] = [];

before(async () => {
  if (skip) return;
  const bundle = async (file: string) =>
    (await bundleForBrowser(readFileSync(new URL(file, import.meta.url), 'utf8'))).code;
  hostSite = await serveFiles({
    '/': ['text/html', HOST_HTML],
    '/host.js': ['text/javascript', await bundle('./apps-host.ts')],
  });
  viewSite = await serveFiles({
    '/view.html': ['text/html', VIEW_HTML],
    '/view.js': ['text/javascript', await bundle('./apps-view.ts')],
  });
  mcpUrl = (await serveDemo(['--cors-origin', `http://127.0.0.1:${hostSite.port}`])).url;
  browser = await launchChromium({ width: 960, height: 900 });
  context = browser.context;
  mkdirSync(OUTPUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  killCliRuns();
  await Promise.all([hostSite?.close(), viewSite?.close()]);
});

async function openHost(era: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  const query = new URLSearchParams({
    server: mcpUrl,
    view: `http://127.0.0.1:${viewSite.port}/view.html`,
    era,
  });
  await page.goto(`http://127.0.0.1:${hostSite.port}/?${query}`);
  await page.waitForFunction(() => 'scenarios' in globalThis, undefined, { timeout: 20_000 });
  return page;
}

function play<T>(page: Page, name: string): Promise<T> {
  return page.evaluate(
    (scenario) =>
      (globalThis as unknown as Record<string, Record<string, () => Promise<unknown>>>).scenarios[scenario](),
    name,
  ) as Promise<T>;
}

for (const era of ['modern', 'legacy']) {
  test(`in Chromium, ${era} era: the demo view and an App-built view, hosted through AppBridge`, {
    skip,
    timeout: 120_000,
  }, async () => {
    const page = await openHost(era);

    const demo = await play<{ era: string; uri: string; ui: unknown }>(page, 'demoView');
    assert.equal(demo.era, era);
    assert.equal(demo.uri, 'ui://demo/counter');
    assert.deepEqual(demo.ui, { prefersBorder: true });
    const demoFrame = page.frameLocator('#demo iframe');
    const shown = Number(await demoFrame.locator('#count').textContent({ timeout: 20_000 }));
    assert.ok(Number.isInteger(shown), `the view shows the count: ${shown}`);
    await demoFrame.locator('#up').click();
    await demoFrame
      .locator('#count')
      .filter({ hasText: String(shown + 1) })
      .waitFor({ timeout: 20_000 });

    await play(page, 'appView');
    const appFrame = page.frameLocator('#app iframe');
    await appFrame.locator('#refused').filter({ hasText: /./ }).waitFor({ timeout: 20_000 });
    assert.equal(await appFrame.locator('#input').textContent(), '{}');
    const count = Number(await appFrame.locator('#count').textContent());
    assert.equal(Number(await appFrame.locator('#increment').textContent()), count + 1);
    assert.match(
      (await appFrame.locator('#refused').textContent()) ?? '',
      /counter_reset is not callable from a view/,
    );
    assert.deepEqual(await play(page, 'calls'), [
      'called counter_increment',
      'called counter_increment',
      'refused counter_reset',
    ]);
    await page.screenshot({ path: join(OUTPUT, `apps-host-${era}.png`), fullPage: true });
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
}
