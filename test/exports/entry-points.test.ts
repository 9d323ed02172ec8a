// Each entry point exports what docs/EXPORTS.md lists, no more and no less: a name gained or lost fails here until
// the list is written again (`node scripts/exports.mjs --write`) and so reviewed. The values are checked twice: as
// the compiler reads the sources, and as a user's `import` finds them in the build.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
// @ts-expect-error: a plain .mjs script, without types
import { EXPORTS_FILE, exportedNames, render } from '../../scripts/exports.mjs';

interface EntryNames {
  name: string;
  values: string[];
  types: string[];
}

describe('the entry points', () => {
  const names: EntryNames[] = exportedNames();

  test('export exactly what docs/EXPORTS.md lists', () => {
    assert.equal(
      render(names),
      readFileSync(EXPORTS_FILE, 'utf8'),
      'an entry point changed what it exports: review it, then `node scripts/exports.mjs --write`',
    );
  });

  for (const entry of names)
    test(`${entry.name}: a user's import finds the values the list names`, async () => {
      const module: Record<string, unknown> = await import(entry.name);
      assert.deepEqual(Object.keys(module).sort(), entry.values);
    });

  test('the root is the server and the client together, and neither exports internals', () => {
    const by = Object.fromEntries(names.map((n) => [n.name, new Set([...n.values, ...n.types])]));
    assert.deepEqual(
      [...by.mcpwire].sort(),
      [...new Set([...by['mcpwire/server'], ...by['mcpwire/client']])].sort(),
    );
    for (const internal of [
      'JsonRpcPeer',
      'Stream',
      'StreamableServerConn',
      'StreamableServerTransport',
      'SENT',
    ])
      assert.ok(!by.mcpwire.has(internal), `${internal} is exported`);
  });
});
