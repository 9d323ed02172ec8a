import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CallArgs, parseCallArgs } from './call-args.js';
import { UsageError } from './usage-error.js';

const parse = (...argv: string[]) => parseCallArgs(argv, '/home/ada') as CallArgs;

test('a URL, an action and its JSON arguments; options anywhere among them', () => {
  const args = parse(
    'http://127.0.0.1:3000/mcp',
    'call',
    'add',
    '--json',
    '{"a":1,"b":2}',
    '--timeout',
    '500',
  );
  assert.equal(args.target.kind === 'url' && args.target.url.href, 'http://127.0.0.1:3000/mcp');
  assert.equal(args.transport, 'auto');
  assert.deepEqual(args.action, { kind: 'call', name: 'add', args: { a: 1, b: 2 } });
  assert.equal(args.json, true);
  assert.equal(args.timeout, 500);
  assert.equal(args.roots, undefined);
  assert.equal(args.store, true);
  assert.equal(parse('http://h/mcp', 'ping', '--no-store').store, false);
});

test('everything after -- is the server command, run over stdio; the action comes before it', () => {
  const args = parse('tools', '--', 'node', 'server.js', '--port', '3', 'tools');
  assert.deepEqual(args.target, {
    kind: 'command',
    command: 'node',
    args: ['server.js', '--port', '3', 'tools'],
  });
  assert.equal(args.transport, 'stdio');
  assert.deepEqual(args.action, { kind: 'tools' });
});

test('--roots takes one path per flag, repeatable, relative ones against the working directory', () => {
  assert.deepEqual(
    parse('http://h/mcp', 'call', 'list_roots', '--roots', '/tmp', '--roots', 'src', '--json').roots,
    ['file:///tmp', 'file:///home/ada/src'],
  );
  assert.deepEqual(parse('http://h/mcp', 'ping', '--roots=/b c').roots, ['file:///b%20c']);
  assert.throws(() => parse('http://h/mcp', 'ping', '--roots'), /--roots <value>' argument missing/);
});

test('--roots before the URL leaves the URL and the action alone', () => {
  const args = parse('--roots', '/a', 'http://h/mcp', 'call', 'x');
  assert.equal(args.target.kind === 'url' && args.target.url.href, 'http://h/mcp');
  assert.deepEqual(args.action, { kind: 'call', name: 'x', args: undefined });
  assert.deepEqual(args.roots, ['file:///a']);
});

test('a second path after one --roots is not taken for a root, and the error says how to give two', () => {
  const hint = /If "\/b" is a root: --roots takes one path, repeat it for more \(--roots A --roots B\)$/;
  assert.throws(() => parse('http://h/mcp', 'ping', '--roots', '/a', '/b'), /Unexpected argument "\/b"/);
  assert.throws(() => parse('http://h/mcp', 'ping', '--roots', '/a', '/b'), hint);
  assert.throws(() => parse('http://h/mcp', 'call', 'list_roots', '--roots', '/a', '/b'), hint);
});

test('--era: auto by default, or modern or legacy; the same for a command', () => {
  assert.equal(parse('http://h/mcp', 'ping').era, 'auto');
  assert.equal(parse('http://h/mcp', 'ping', '--era', 'modern').era, 'modern');
  assert.equal(parse('--era=legacy', 'ping', '--', 'node', 'server.js').era, 'legacy');
});

test('listen: every list change when no flag says what; else what the flags name', () => {
  assert.deepEqual(parse('http://h/mcp', 'listen').action, {
    kind: 'listen',
    filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
  });
  assert.deepEqual(parse('http://h/mcp', 'listen', '--tools', '--resources').action, {
    kind: 'listen',
    filter: { toolsListChanged: true, resourcesListChanged: true },
  });
  assert.deepEqual(
    parse('http://h/mcp', 'listen', '--resource', 'demo://readme', '--prompts', '--resource', 'demo://b')
      .action,
    {
      kind: 'listen',
      filter: { promptsListChanged: true, resourceSubscriptions: ['demo://readme', 'demo://b'] },
    },
  );
  assert.deepEqual(parse('http://h/mcp', 'listen', '--resource', 'demo://readme').action, {
    kind: 'listen',
    filter: { resourceSubscriptions: ['demo://readme'] },
  });
});

test('headers are "Name: value" and repeatable', () => {
  assert.deepEqual(
    parse('http://h/mcp', 'ping', '--header', 'Authorization: Bearer a:b', '--header', 'X-A:1').headers,
    {
      Authorization: 'Bearer a:b',
      'X-A': '1',
    },
  );
  assert.throws(() => parse('http://h/mcp', 'ping', '--header', 'nocolon'), /--header takes "Name: value"/);
});

test('complete: prompt:NAME or a resource template, the argument, what is typed so far, the chosen ones', () => {
  assert.deepEqual(parse('http://h/mcp', 'complete', 'prompt:greet', 'name', 'A').action, {
    kind: 'complete',
    ref: { type: 'ref/prompt', name: 'greet' },
    argument: { name: 'name', value: 'A' },
    context: undefined,
  });
  assert.deepEqual(parse('http://h/mcp', 'complete', 'demo://items/{id}', 'id', '', '{"kind":"x"}').action, {
    kind: 'complete',
    ref: { type: 'ref/resource', uri: 'demo://items/{id}' },
    argument: { name: 'id', value: '' },
    context: { kind: 'x' },
  });
  const bare = parse('http://h/mcp', 'complete', 'prompt:greet', 'name').action;
  assert.deepEqual(bare.kind === 'complete' && bare.argument, { name: 'name', value: '' });
});

test('--elicit-reply takes an action or the form values; --log-level a level', () => {
  const reply = (text: string) =>
    parse('http://h/mcp', 'call', 'elicit_name', '--elicit-reply', text).elicitReply;
  assert.deepEqual(reply('decline'), { action: 'decline' });
  assert.deepEqual(reply('accept'), { action: 'accept' });
  assert.deepEqual(reply('{"name":"Ada","tags":["x"],"n":1,"ok":true}'), {
    action: 'accept',
    content: { name: 'Ada', tags: ['x'], n: 1, ok: true },
  });
  const args = parse('http://h/mcp', 'tools', '--log-level', 'warning');
  assert.equal(args.logLevel, 'warning');
  assert.equal(args.elicitReply, undefined);
  assert.equal(parse('http://h/mcp', 'tools').logLevel, undefined);
});

test('mistakes are UsageErrors that say what to change', () => {
  const cases: Array<[string[], RegExp]> = [
    [[], /needs a server/],
    [['http://h/mcp'], /needs an action/],
    [['tools'], /"tools" is an action; give the server first/],
    [['ftp://h/'], /must be http:\/\/ or https:\/\//],
    [['http://h/mcp', 'frob'], /Unknown action "frob"/],
    [['http://h/mcp', 'call'], /call needs a tool name/],
    [['http://h/mcp', 'ping', 'extra'], /Unexpected argument "extra" after ping/],
    [
      ['http://h/mcp', 'call', 'echo', '{x}'],
      /arguments of tool "echo" are not valid JSON \(\{x\}\): .*position 1/,
    ],
    [['http://h/mcp', 'call', 'echo', '[1]'], /must be a JSON object .* not an array/],
    [['http://h/mcp', 'prompt', 'greet', '{"name":1}'], /prompt "greet" must all be strings: "name" is 1/],
    [['http://h/mcp', 'ping', '--transport', 'ws'], /--transport must be one of auto, http, sse, stdio/],
    [
      ['http://h/mcp', 'ping', '--transport', 'stdio'],
      /--transport stdio needs the server command after `--`/,
    ],
    [['ping', '--transport', 'http', '--', 'node'], /--transport http needs a URL/],
    [['ping', '--'], /`--` must be followed by the command/],
    [['http://h/mcp', 'ping', '--timeout', '0'], /--timeout takes a positive number of milliseconds/],
    [
      ['http://h/mcp', 'ping', '--elicit-reply', 'acept'],
      /--elicit-reply takes accept, decline, cancel, or .* not "acept"/,
    ],
    [['http://h/mcp', 'ping', '--elicit-reply', '{"a":'], /the values of --elicit-reply are not valid JSON/],
    [
      ['http://h/mcp', 'ping', '--elicit-reply', '{"a":{"b":1}}'],
      /values of --elicit-reply must be strings, numbers, booleans or arrays of strings: "a" is \{"b":1\}/,
    ],
    [
      ['http://h/mcp', 'ping', '--log-level', 'loud'],
      /--log-level must be one of debug, info, .*emergency, not "loud"/,
    ],
    [['http://h/mcp', 'ping', '--era', '2026'], /--era must be one of auto, modern, legacy, not "2026"/],
    [
      ['http://h/mcp', 'tools', '--tools'],
      /--tools goes with the listen action: `mcpwire call URL listen --tools`/,
    ],
    [['http://h/mcp', 'ping', '--resource', 'a://b'], /`mcpwire call URL listen --resource URI`/],
    [['http://h/mcp', 'listen', 'tools'], /Unexpected argument "tools" after listen/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseCallArgs(argv),
      (err: Error) => err instanceof UsageError && message.test(err.message),
      argv.join(' '),
    );
  }
  assert.throws(() => parseCallArgs(['http://h/mcp', 'ping', '--frob']), {
    code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
  });
  assert.equal(parseCallArgs(['--help']), 'help');
});

test('task ID follows a task; --no-task refuses tasks, and the two do not go together', () => {
  const resume = parse('http://h/mcp', 'task', 'abc123');
  assert.deepEqual(resume.action, { kind: 'task', taskId: 'abc123' });
  assert.equal(resume.tasks, true);
  assert.equal(parse('http://h/mcp', 'call', 'x', '--no-task').tasks, false);
  assert.throws(() => parse('http://h/mcp', 'task'), /task needs the id of a task/);
  assert.throws(() => parse('http://h/mcp', 'task', 'a', 'b'), /Unexpected argument "b"/);
  assert.throws(() => parse('http://h/mcp', 'task', 'a', '--no-task'), UsageError);
});
