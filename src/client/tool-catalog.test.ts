import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RequestCancelledError } from '../peer/errors.js';
import type { ListToolsResult, Tool } from '../protocol/types.js';
import { ToolCatalog } from './tool-catalog.js';

const tool = (name: string): Tool => ({
  name,
  inputSchema: { type: 'object' },
  execution: { taskSupport: 'required' },
});

describe('ToolCatalog', () => {
  test('a lookup lists again when a list change voided its listing (tools added as the session starts)', async () => {
    let listings = 0;
    const catalog: ToolCatalog = new ToolCatalog(async function* () {
      listings++;
      const generation = catalog.begin();
      const page: ListToolsResult = { tools: listings === 1 ? [tool('a')] : [tool('a'), tool('late')] };
      // The first listing hears tools/list_changed before its answer is recorded.
      if (listings === 1) catalog.forget();
      catalog.record(generation, page, true);
      yield* page.tools;
      catalog.complete(generation);
    }, assert.fail);
    assert.equal((await catalog.lookup('late', undefined))?.taskSupport, 'required');
    assert.equal(listings, 2);
    // Listed whole now: an unknown name asks nothing more.
    assert.equal(await catalog.lookup('absent', undefined), undefined);
    assert.equal(listings, 2);
  });

  test("a caller's abort ends its wait for the list at once; the listing goes on for the others", async () => {
    let listings = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const catalog: ToolCatalog = new ToolCatalog(async function* () {
      listings++;
      const generation = catalog.begin();
      await released; // a server slow to list (a child still starting behind a bridge)
      const page: ListToolsResult = { tools: [tool('a')] };
      catalog.record(generation, page, true);
      yield* page.tools;
    }, assert.fail);
    const controller = new AbortController();
    const aborted = catalog.lookup('a', { signal: controller.signal });
    const patient = catalog.lookup('a', undefined);
    controller.abort(new Error('changed my mind'));
    await assert.rejects(aborted, (err: Error) => {
      assert.ok(err instanceof RequestCancelledError, String(err));
      assert.match(err.message, /tools\/call.*changed my mind/);
      return true;
    });
    release();
    assert.equal((await patient)?.taskSupport, 'required');
    assert.equal(listings, 1, 'one listing, shared');
  });
});
