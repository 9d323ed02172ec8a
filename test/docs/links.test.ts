// Every relative link in README.md and the pages under docs/ names a file or folder that exists, so that moving a
// page or a source file cannot leave a reader at a dead link. Links to other sites and anchors within a page are
// not followed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function pages(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) pages(path, out);
    else if (name.endsWith('.md')) out.push(path);
  }
  return out;
}

/** The targets of the inline links `[text](target)` of a Markdown page, outside fenced code blocks. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...prose.matchAll(/\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#');

test('linkTargets finds inline links and skips code blocks', () => {
  const page = 'See [a](docs/a.md) and [b](b.md "t").\n```md\n[no](x.md)\n```\n[c](https://x.org/)';
  assert.deepEqual(linkTargets(page), ['docs/a.md', 'b.md', 'https://x.org/']);
});

test('every relative link of README.md and docs/ resolves to a file', () => {
  const files = [join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs'))];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (isExternal(target)) continue;
      const path = decodeURIComponent(target.split('#')[0]!);
      checked++;
      if (!existsSync(join(dirname(file), path))) broken.push(`${relative(ROOT, file)}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 0, 'no relative link was found: the link pattern is wrong');
});
