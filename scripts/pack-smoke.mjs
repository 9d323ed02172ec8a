// The package as its users get it. Packs the tarball (`prepack` builds it from a clean dist/), checks that it
// ships only what `exports` and `bin` reach, then, on each Node binary given (default: the one running this),
// installs it with --engine-strict into an empty project and checks: every export imports, `npx mcpwire
// --version`, `mcpwire serve` answers one `mcpwire call … tools`, and without the optional peer ioredis the
// Redis pieces (and `serve --redis`) fail saying to install it, while with it they load. The types of every
// export are checked once (tsc, skipLibCheck off), without ioredis except for mcpwire/cluster.
//   node scripts/pack-smoke.mjs [NODE_BINARY…]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const nodes = (process.argv.length > 2 ? process.argv.slice(2) : [process.execPath]).map((p) =>
  realpathSync(p),
);
const work = mkdtempSync(join(tmpdir(), 'mcpwire-pack-'));
/** The `mcpwire serve` processes running, which a failure kills. */
const servers = new Set();

function fail(message) {
  console.error(`pack-smoke: FAILED: ${message}`);
  for (const child of servers) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

/** Runs a command to its end; fails the smoke test unless it exits `expect`. Returns its output. */
function run(command, args, { cwd = ROOT, env = process.env, expect = 0, timeout = 300_000 } = {}) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
  const said = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== expect)
    fail(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal} (wanted ${expect}):\n${said}`,
    );
  return { stdout: result.stdout, stderr: result.stderr };
}

/** This environment with `node` (and so npm and npx, whose scripts ask env for node) resolving to `node`. */
const envFor = (node) => ({ ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` });

// ---- the tarball ----
const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work]).stdout)[0];
const tarball = join(work, packed.filename);
const shipped = packed.files.map((f) => f.path);
console.log(
  `ok  packed ${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes (${packed.unpackedSize} unpacked)`,
);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
if (!shipped.includes('LICENSE')) fail('the tarball has no LICENSE');
const maps = shipped.filter((p) => p.endsWith('.map'));
if (maps.length > 0)
  fail(`the tarball ships source maps without their sources: ${maps.slice(0, 3).join(', ')}…`);

/** The shipped files `exports` and `bin` reach, following relative imports (static, dynamic, type-only). */
function reachable() {
  const entries = [
    ...Object.values(pkg.exports).flatMap((e) => Object.values(e)),
    ...Object.values(pkg.bin),
  ].map((p) => posix.normalize(p));
  const seen = new Set();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [, spec] of text.matchAll(/(?:from\s*|import\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = posix.join(posix.dirname(file), spec);
      todo.push(file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target);
    }
  }
  return seen;
}
// A module counts as reached when its code or its types are: an internal module's .d.ts describes code that
// ships, and a module of types only compiles to an empty .js that nothing imports at run time.
const moduleOf = (path) => path.replace(/(\.d\.ts|\.js)$/, '');
const reached = new Set([...reachable()].map(moduleOf));
const modules = new Set(shipped.filter((p) => p.startsWith('dist/')).map(moduleOf));
const unreached = [...modules].filter((m) => !reached.has(m));
if (unreached.length > 0) fail(`shipped but reached by no export or bin:\n  ${unreached.join('\n  ')}`);
console.log(`ok  each of the ${modules.size} modules shipped is reached from exports or bin`);

// ---- in an empty project, on each Node ----
const subpaths = Object.keys(pkg.exports).map((key) => `mcpwire${key.slice(1)}`);
const importAll = `
for (const spec of ${JSON.stringify(subpaths)}) {
  const names = Object.keys(await import(spec));
  if (names.length === 0) throw new Error(spec + ' exports nothing');
  console.log('    ' + spec + ': ' + names.length + ' names');
}`;
const withoutIoredis = `
try { await import('ioredis'); throw new Error('ioredis is installed: it should not be'); }
catch (err) { if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err; }
const { RedisEventStore } = await import('mcpwire/cluster');
try { new RedisEventStore({ redis: 'redis://127.0.0.1:1' }); throw new Error('RedisEventStore ran without ioredis'); }
catch (err) { if (!/npm install ioredis/.test(err.message)) throw err; console.log('    "' + err.message + '"'); }`;
const withIoredis = `
const { createRedisClient } = await import('mcpwire/cluster');
const client = createRedisClient('redis://127.0.0.1:1');
if (typeof client.xadd !== 'function') throw new Error('not an ioredis client');
client.disconnect();`;

/** Starts `mcpwire serve --port 0` in `project`, resolving with the child and the URL it printed. */
function serve(project, env) {
  const child = spawn(join(project, 'node_modules/.bin/mcpwire'), ['serve', '--port', '0'], {
    cwd: project,
    env,
  });
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpwire serve printed no URL within 20 s:\n${out}`));
    }, 20_000);
    child.stdout.on('data', () => {
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(out)?.[0];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ child, url, exited: new Promise((done) => child.once('exit', (code) => done(code))) });
    });
    child.once('exit', (code) =>
      reject(new Error(`mcpwire serve exited ${code} before it listened:\n${out}`)),
    );
  });
}

/** An empty project on `node` with the tarball installed by npm --engine-strict, and how to run things in it. */
function install(node, index) {
  const env = envFor(node);
  const version = run('node', ['--version'], { env }).stdout.trim();
  const dir = join(work, `project-${index}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), '{ "name": "smoke", "private": true, "type": "module" }\n');
  const project = {
    dir,
    env,
    say: (line) => console.log(`ok  node ${version}: ${line}`),
    npm: (args) => run('npm', [...args, '--no-audit', '--no-fund'], { cwd: dir, env }),
    script: (code) => run('node', ['--input-type=module', '-e', code], { cwd: dir, env }).stdout,
    mcpwire: (args, expect = 0) =>
      run(join(dir, 'node_modules/.bin/mcpwire'), args, { cwd: dir, env, expect, timeout: 60_000 }),
  };
  const installed = project.npm(['install', '--engine-strict', tarball]);
  project.say(`npm install --engine-strict ${packed.filename}: ${installed.stdout.trim()}`);
  if (installed.stderr.trim() !== '') console.log(`    npm said on stderr:\n${installed.stderr.trim()}`);
  return project;
}

/** The command line: `npx mcpwire --version`, then the demo served and called once. */
async function commandLine(project) {
  const said = run('npx', ['mcpwire', '--version'], { cwd: project.dir, env: project.env }).stdout.trim();
  if (said !== pkg.version) fail(`npx mcpwire --version said "${said}", not ${pkg.version}`);
  project.say(`npx mcpwire --version: ${said}`);
  const served = await serve(project.dir, project.env).catch((err) => fail(err.message));
  const tools = project.mcpwire(['call', served.url, 'tools']).stdout;
  served.child.kill('SIGINT');
  const code = await served.exited;
  if (!/^echo\b/m.test(tools)) fail(`mcpwire call ${served.url} tools did not list echo:\n${tools}`);
  if (code !== 0) fail(`mcpwire serve exited ${code} after SIGINT`);
  project.say(`mcpwire serve, then mcpwire call ${served.url} tools: ${tools.split('\n')[0]}`);
}

/** What a user of Redis is told without ioredis, and that with it installed the Redis client loads. */
function redisPeer(project, typesToo) {
  process.stdout.write(project.script(withoutIoredis));
  project.say('without ioredis, mcpwire/cluster imports and its Redis pieces say to install it');
  const refused = project.mcpwire(['serve', '--port', '0', '--redis', 'redis://127.0.0.1:1'], 1);
  if (!/npm install ioredis/.test(refused.stderr))
    fail(`serve --redis without ioredis said:\n${refused.stderr}`);
  project.say('mcpwire serve --redis without ioredis: exit 1, with the same words');
  if (typesToo)
    typecheck(
      project.dir,
      subpaths.filter((s) => s !== 'mcpwire/cluster'),
      'without ioredis',
    );
  project.npm(['install', '--engine-strict', `ioredis@${pkg.devDependencies.ioredis}`]);
  project.script(withIoredis);
  project.say(`with ioredis ${pkg.devDependencies.ioredis} installed, createRedisClient loads it`);
  if (typesToo) typecheck(project.dir, subpaths, 'with ioredis');
}

/** Type-checks a file importing `specs` in `project` against the shipped .d.ts files. */
function typecheck(project, specs, how) {
  const file = join(project, 'types.ts');
  writeFileSync(file, specs.map((s, i) => `import * as m${i} from '${s}';\nvoid m${i};\n`).join(''));
  // @types/node from this repository: the project installs only what users need to run.
  const typeRoots = join(ROOT, 'node_modules/@types');
  // biome-ignore format: one option per line
  const flags = [
    '--module', 'nodenext',
    '--strict',
    '--noEmit',
    '--skipLibCheck', 'false',
    '--types', 'node',
    '--typeRoots', typeRoots,
  ];
  run(process.execPath, [TSC, ...flags, file], { cwd: project });
  console.log(`ok  tsc, skipLibCheck off, ${how}: ${specs.join(', ')}`);
}

for (const [index, node] of nodes.entries()) {
  const project = install(node, index);
  process.stdout.write(project.script(importAll));
  project.say('every export imports');
  await commandLine(project);
  redisPeer(project, index === 0);
}
rmSync(work, { recursive: true, force: true });
console.log('pack-smoke: all passed');
