// Each command's own help page: `mcpwire serve --help`, `mcpwire call -h`, `mcpwire help call`, exit 0; a usage
// mistake names the page of the command it was made in.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';

async function run(args: string[]) {
  const cli = runCli(args);
  cli.child.stdin.end();
  const code = await cli.exit(30_000);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

after(killCliRuns);

describe('mcpwire help pages', { concurrency: true }, () => {
  for (const args of [
    ['serve', '--help'],
    ['serve', '-h'],
    ['serve', '--port', '8080', '--help'],
    ['help', 'serve'],
  ]) {
    test(`mcpwire ${args.join(' ')}: the serve page, its flags and examples`, async () => {
      const { code, stdout } = await run(args);
      assert.equal(code, 0);
      assert.match(stdout, /^Usage: mcpwire serve \[options\]/);
      for (const flag of [
        '--port N',
        '--stateless',
        '--cors-origin O',
        '--redis URL',
        '--redis-cluster NODES',
        '--oauth-issuer',
        'Examples:',
      ]) {
        assert.ok(stdout.includes(flag), `no ${flag}`);
      }
      assert.ok(!stdout.includes('--elicit-reply'), 'the call page leaked in');
    });
  }

  for (const args of [
    ['call', '--help'],
    ['call', '-h'],
    ['call', 'http://127.0.0.1:1/mcp', 'tools', '--help'],
    ['help', 'call'],
  ]) {
    test(`mcpwire ${args.join(' ')}: the call page, its actions, flags and examples`, async () => {
      const { code, stdout } = await run(args);
      assert.equal(code, 0);
      assert.match(stdout, /^Usage: mcpwire call <url> <action>/);
      for (const part of [
        'complete prompt:NAME',
        'task ID',
        '--no-task',
        '--elicit-reply',
        '--era E',
        'Exit status:',
        'Examples:',
      ]) {
        assert.ok(stdout.includes(part), `no ${part}`);
      }
      assert.ok(!stdout.includes('--oauth-introspection'), 'the serve page leaked in');
    });
  }

  test('mcpwire --help: the commands, and where their options are', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /serve {4}Serve your MCP server \(a module exporting it\), or the demo one/);
    assert.match(stdout, /call {5}Connect to an MCP server/);
    assert.ok(stdout.includes('mcpwire <command> --help'));
  });

  test('a usage mistake names the page of its command; an unknown help topic is one', async () => {
    const serve = await run(['serve', '--port', 'x']);
    assert.equal(serve.code, 2);
    assert.match(serve.stderr, /--port must be an integer/);
    assert.ok(serve.stderr.includes('Run `mcpwire serve --help` for the usage.'), serve.stderr);
    const call = await run(['call', '--bogus']);
    assert.equal(call.code, 2);
    assert.ok(call.stderr.includes('Run `mcpwire call --help` for the usage.'), call.stderr);
    const topic = await run(['help', 'deploy']);
    assert.equal(topic.code, 2);
    assert.match(topic.stderr, /No command "deploy"/);
  });
});
