import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
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
});
