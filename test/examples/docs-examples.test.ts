// The code the docs show is code that runs. A block of README.md or of a page under docs/ marked
// `<!-- example: examples/x.ts -->` (or `examples/x.ts#name`, the lines between `// #region name` and
// `// #endregion name`) is that file, to the character; every TypeScript or JavaScript block of README.md is
// marked. Each example then runs for real, importing the package by its public names (`npm run build` made what
// they resolve to): a server example is started and called by mcpwire's Client over stdio, in both eras; a client
// example is run against `mcpwire serve`, in both eras where it takes one.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, type ClientSession, connectStdio, connectUrl, McpError } from 'mcpwire/client';
import { listSkills, readSkillFile } from 'mcpwire/skills';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { freePort } from '../../src/test-support/free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BOUND = { timeout: 30_000 };
const ERAS = ['modern', 'legacy'] as const;

interface ShownBlock {
  page: string;
  /** The marker's target, or undefined for a block with none. */
  example: string | undefined;
  lang: string;
  code: string;
}

/** The fenced blocks of a Markdown page, each with the example marker on the line before it, if any. */
function blocks(page: string): ShownBlock[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const found: ShownBlock[] = [];
  const fence = /(?:<!-- example: (\S+) -->\n)?^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(fence)) found.push({ page, example: m[1], lang: m[2]!, code: m[3]! });
  return found;
}

/** The text a marker names: a whole file, or one region of it. */
function exampleText(target: string): string {
  const [file, region] = target.split('#') as [string, string | undefined];
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (region === undefined) return text;
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${region}`);
  const end = lines.findIndex((l) => l.trim() === `// #endregion ${region}`);
  assert.ok(start >= 0 && end > start, `${file} has no region ${region}`);
  return `${lines.slice(start + 1, end).join('\n')}\n`;
}

function pages(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) pages(path, out);
    else if (name.endsWith('.md')) out.push(path);
  }
  return out;
}

const RUNNABLE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

describe('the docs show the example files as they are', () => {
  const shown = ['README.md', ...pages('docs')].flatMap(blocks);

  test('every TypeScript or JavaScript block of README.md is an example file', () => {
    const unmarked = shown.filter((b) => b.page === 'README.md' && RUNNABLE.has(b.lang) && !b.example);
    assert.deepEqual(
      unmarked.map((b) => b.code.split('\n')[0]),
      [],
      'README.md shows code that no test runs: make it a file under examples/ and mark the block',
    );
    assert.ok(shown.filter((b) => b.page === 'README.md' && b.example).length >= 2);
  });

  test('each marked block is its file, or its region, to the character', () => {
    const marked = shown.filter((b) => b.example !== undefined);
    assert.ok(marked.length >= 4, 'no marked block was found: the marker pattern is wrong');
    for (const block of marked) {
      assert.equal(
        block.code,
        exampleText(block.example!),
        `${block.page}: the block of ${block.example} differs`,
      );
    }
  });
});

const run = promisify(execFile);

/** Runs an example file with tsx, as a user runs it, and resolves with what it printed. */
async function runExample(file: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(ROOT, file), ...args], {
    cwd: ROOT,
    timeout: 20_000,
  });
  return stdout;
}

/** mcpwire's Client, speaking `era`, connected over stdio to an example server run with tsx. */
function connectExample(file: string, era: (typeof ERAS)[number]): Promise<ClientSession> {
  // server/discover waits for node and tsx to start the example: more than the default 5 s on a loaded machine.
  const client = new Client({ name: 'docs-test', version: '1.0.0' }, { era, probeTimeoutMs: 20_000 });
  return connectStdio(client, {
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, file)],
    cwd: ROOT,
  });
}

const textOf = (result: { contents: ({ text: string } | { blob: string })[] }): string => {
  const first = result.contents[0]!;
  return 'text' in first ? first.text : '';
};

describe('the example servers answer mcpwire’s client', () => {
  for (const era of ERAS) {
    test(`examples/readme/server.ts: forecast, ${era} era`, BOUND, async () => {
      const session = await connectExample('examples/readme/server.ts', era);
      try {
        assert.equal(session.era, era);
        const result = await session.callTool('forecast', { city: 'Paris' });
        assert.deepEqual(result.content, [{ type: 'text', text: 'Sunny in Paris' }]);
        const refused = await session.callTool('forecast', {});
        assert.equal(refused.isError, true, 'city is required');
      } finally {
        await session.close();
      }
    });

    test(`examples/resources/server.ts: resources, template, prompt, ${era} era`, BOUND, async () => {
      const session = await connectExample('examples/resources/server.ts', era);
      try {
        assert.equal(session.era, era);
        const { resources } = await session.listResources();
        assert.deepEqual(
          resources.map((r) => r.uri),
          ['notes://index', 'notes://1', 'notes://2'],
        );
        const { resourceTemplates } = await session.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((t) => t.uriTemplate),
          ['notes://{id}'],
        );
        assert.equal(textOf(await session.readResource('notes://index')), 'notes://1\nnotes://2');
        assert.equal(textOf(await session.readResource('notes://2')), 'Call Ada');
        await assert.rejects(session.readResource('notes://9'), (err: unknown) => {
          assert.ok(err instanceof McpError);
          assert.match(err.message, /No note 9|notes:\/\/9/);
          return true;
        });
        const completion = await session.complete(
          { type: 'ref/resource', uri: 'notes://{id}' },
          { name: 'id', value: '' },
        );
        assert.deepEqual(completion.completion.values, ['1', '2']);
        const prompt = await session.getPrompt('summarize', { id: '1' });
        assert.deepEqual(
          prompt.messages.map((m) => m.content.type),
          ['resource_link', 'text'],
        );
        await assert.rejects(session.getPrompt('summarize', {}), McpError);
      } finally {
        await session.close();
      }
    });
  }
});

describe('the example app answers mcpwire\u2019s client', () => {
  for (const era of ERAS) {
    test(`examples/apps/server.ts: the view and its tool, ${era} era`, BOUND, async () => {
      const session = await connectExample('examples/apps/server.ts', era);
      try {
        const [roll] = (await session.listTools()).tools;
        assert.deepEqual(roll?._meta?.ui, { resourceUri: 'ui://dice/roll' });
        const [view] = (await session.readResource('ui://dice/roll')).contents;
        assert.equal(view?.mimeType, 'text/html;profile=mcp-app');
        assert.deepEqual(view?._meta, { ui: { prefersBorder: true } });
        const result = await session.callTool('roll', { sides: 1 });
        assert.deepEqual(result.content, [{ type: 'text', text: 'You rolled 1.' }]);
        assert.deepEqual(result.structuredContent, { roll: 1 });
      } finally {
        await session.close();
      }
    });
  }
});

describe('the example skills answer mcpwire\u2019s client', () => {
  for (const era of ERAS) {
    test(`examples/skills/server.ts: the skill and its files, verified, ${era} era`, BOUND, async () => {
      const session = await connectExample('examples/skills/server.ts', era);
      try {
        const [skill, ...others] = await listSkills(session);
        assert.equal(skill?.uri, 'skill://release-notes/SKILL.md');
        assert.deepEqual(others, []);
        const manifest = await readSkillFile(session, skill!);
        assert.match(manifest.body ?? '', /^\n# Release notes\n/);
        assert.match((await readSkillFile(session, skill!, 'TEMPLATE.md')).text ?? '', /^## What's new/);
      } finally {
        await session.close();
      }
    });
  }
});

describe('the example clients against mcpwire serve', () => {
  let served: { run: CliRun; url: string };

  before(async () => {
    served = await serveDemo();
  });
  after(killCliRuns);

  test('examples/readme/client.ts: lists the tools and adds', BOUND, async () => {
    const out = await runExample('examples/readme/client.ts', [served.url]);
    assert.match(out, /^modern era\n/);
    assert.match(out, /\ntool: echo\n(.*\n)*tool: add\n/);
    assert.match(out, /\[ \{ type: 'text', text: '3' \} \]\n$/);
  });

  for (const era of ERAS) {
    test(`examples/resources/client.ts: reads resources and a prompt, ${era} era`, BOUND, async () => {
      const out = await runExample('examples/resources/client.ts', [served.url, era]);
      assert.equal(
        out,
        [
          'resources: demo://readme, ui://demo/counter',
          'templates: demo://items/{id}',
          'readme: # mcpwire demo',
          'item: This is demo item 42.',
          'user: Please greet Ada warmly.',
          `${era} era`,
          '',
        ].join('\n'),
      );
    });
  }
});

describe('the example module that mcpwire serve serves', () => {
  for (const era of ERAS) {
    test(`examples/serve/server.mjs over HTTP: forecast, ${era} era`, BOUND, async () => {
      const { run, url } = await serveDemo([join(ROOT, 'examples/serve/server.mjs')]);
      try {
        assert.match(run.stdout(), /^weather \(.*examples\/serve\/server\.mjs\): http:/);
        const session = await connectUrl(new Client({ name: 'docs', version: '1.0.0' }, { era }), url);
        assert.equal(session.era, era);
        assert.deepEqual((await session.callTool('forecast', { city: 'Paris' })).content, [
          { type: 'text', text: 'Sunny in Paris' },
        ]);
        await session.close();
      } finally {
        run.child.kill('SIGTERM');
        await run.exit(15_000);
      }
    });
  }
});

describe('the example skills client against mcpwire serve --skills', () => {
  test('examples/skills/client.ts: lists the skill and prints its body, verified', BOUND, async () => {
    const { run, url } = await serveDemo(['--skills', join(ROOT, 'examples/skills/skills')]);
    try {
      const out = await runExample('examples/skills/client.ts', [url]);
      assert.match(
        out,
        /^release-notes: Write the release notes of a version from the changes merged since the last one\n\n# Release notes\n/,
      );
    } finally {
      run.child.kill('SIGTERM');
      await run.exit(15_000);
    }
  });
});

describe('the access example: who may call what', () => {
  for (const era of ERAS) {
    test(
      `examples/access/server.ts: two callers, a scope-guarded tool, a limit, ${era} era`,
      BOUND,
      async () => {
        const port = await freePort();
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(ROOT, 'examples/access/server.ts'), String(port)],
          {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        try {
          const [line] = (await once(child.stdout!, 'data')) as [Buffer];
          const url = `http://127.0.0.1:${port}/mcp`;
          assert.equal(String(line), `listening on ${url}\n`);
          const as = (token: string) =>
            connectUrl(new Client({ name: token, version: '1.0.0' }, { era }), url, {
              headers: { authorization: `Bearer ${token}` },
            });
          const [ada, bob] = [await as('ada-token'), await as('bob-token')];
          const names = async (session: ClientSession) =>
            (await session.listTools()).tools.map((t) => t.name);
          assert.deepEqual(await names(ada), ['read-notes', 'delete-notes']);
          assert.deepEqual(await names(bob), ['read-notes']);
          assert.deepEqual((await bob.callTool('read-notes')).content, [
            { type: 'text', text: 'the notes of bob' },
          ]);
          assert.deepEqual((await ada.callTool('delete-notes')).content, [{ type: 'text', text: 'deleted' }]);
          await assert.rejects(
            bob.callTool('delete-notes'),
            /403|Forbidden: Tool "delete-notes" needs the OAuth scope "admin"/,
          );
          // Bob uses up his 30 requests a minute; Ada is still served.
          let limited: unknown;
          for (let i = 0; i < 31 && limited === undefined; i++)
            await bob.callTool('read-notes').catch((err) => (limited = err));
          assert.match(String(limited), /429|Too Many Requests/);
          assert.deepEqual(await names(ada), ['read-notes', 'delete-notes']);
          await Promise.all([ada.close(), bob.close()]);
        } finally {
          child.kill('SIGTERM');
        }
      },
    );
  }
});
