// Runs every *.test.ts under src/ and test/, and the benchmarks' own *.test.mjs under bench/lib/, with node's own
// test runner (TypeScript through tsx).
// Node 20's runner takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts') || name.endsWith('.test.mjs')) out.push(path);
  }
  return out;
}

/** Whether `command` is an executable file in a folder of PATH. */
function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const only = process.argv.slice(2);
const listed = only.length > 0 ? only : collect('bench/lib', collect('test', collect('src', []))).sort();

// The Redis tests start redis-servers of their own (they import test-support/redis-server, redis-backend or
// redis-cluster-server). Without one on PATH they are left out, loudly, so that the suite passes on a machine
// with only Node; CI sets MCPWIRE_REQUIRE_REDIS=1, which makes a missing redis-server an error there instead.
const REDIS_SUPPORT = /test-support\/redis-(server|backend|cluster-server)\.js/;
const needRedis = listed.filter((f) => REDIS_SUPPORT.test(readFileSync(f, 'utf8')));
let skipped = [];
if (needRedis.length > 0 && !onPath('redis-server')) {
  if (process.env.MCPWIRE_REQUIRE_REDIS === '1') {
    console.error(
      `redis-server is not on PATH, and MCPWIRE_REQUIRE_REDIS=1 requires the ${needRedis.length} Redis test ` +
        'files to run: install it (Debian: apt-get install redis-server)',
    );
    process.exit(1);
  }
  skipped = needRedis;
}
const files = listed.filter((f) => !skipped.includes(f));
const warning =
  `SKIPPED ${skipped.length} Redis test files: redis-server is not on PATH. ` +
  `Install it to run them: apt-get install redis-server\n  ${skipped.join('\n  ')}`;
if (skipped.length > 0) console.error(warning);

const result =
  files.length === 0
    ? { status: 0 }
    : spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=300000', ...files], {
        stdio: 'inherit',
      });
// Said again after the runner's summary, where it is read.
if (skipped.length > 0) console.error(warning);
process.exit(result.status ?? 1);
