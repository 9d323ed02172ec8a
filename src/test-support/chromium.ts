import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';

/** Chromium kept to itself: no sandbox (root in CI), no GPU, and nothing but loopback on the network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

/**
 * Why a browser test of `file` is skipped (false when Debian's chromium is there): said loudly on stderr.
 * With MCPWIRE_REQUIRE_BROWSER=1 (CI) a missing chromium throws instead: the test must run.
 */
export function chromiumMissing(file: string): string | false {
  if (existsSync(CHROMIUM)) return false;
  const say = `${CHROMIUM} is missing: the browser test needs Debian's chromium (${INSTALL})`;
  if (process.env.MCPWIRE_REQUIRE_BROWSER === '1') {
    throw new Error(`${say}, and MCPWIRE_REQUIRE_BROWSER=1 says it must run`);
  }
  process.stderr.write(`\n*** SKIPPED ${file}: ${say} ***\n\n`);
  return `chromium is not installed (${INSTALL})`;
}

/** Headless Chromium in a profile of its own; `close` ends it and removes the profile. */
export async function launchChromium(viewport: { width: number; height: number }): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'mcpwire-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
