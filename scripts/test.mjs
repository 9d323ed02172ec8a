// Runs every *.test.ts under src/ and test/ with node's own test runner (TypeScript through tsx).
// Node 20's runner takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : collect('test', collect('src', [])).sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=300000', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
