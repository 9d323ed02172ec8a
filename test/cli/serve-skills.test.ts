// `mcpwire serve --skills DIR` beside the demo server, and `mcpwire call URL skills` / `skill NAME|URI [FILE]`
// in both eras: the skills listed, a SKILL.md and a file of it printed once verified, and the mistakes a user
// makes (no such folder, no such skill, a path out of the skill) answered with what to do.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliRun, callCli, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';
import { FORMS_MD, makeSkillsFolder, PDF_SKILL_MD } from '../../src/test-support/skills-folder.js';

let run: CliRun;
let url: string;
let root: string;
before(async () => {
  ({ root } = await makeSkillsFolder());
  ({ run, url } = await serveDemo(['--skills', root]));
});
after(() => stopServe(run));

const call = (...args: string[]) => callCli(url, args);

test('serve says which skills it skipped and why, and how many it serves', () => {
  assert.match(
    run.stderr(),
    /skills: wrong-name\/SKILL.md: name "other-name" must be the name of the skill's folder/,
  );
  assert.match(run.stderr(), /skills: linked\/secret.txt: symbolic links .* not followed/);
  assert.match(run.stderr(), /serving 2 skill\(s\) from /);
});

for (const era of ['modern', 'legacy']) {
  test(`${era}: skills lists them; skill prints a SKILL.md or a file of it, verified`, async () => {
    const listed = await call('skills', '--era', era);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(
      listed.stdout,
      'pdf-processing: Extract, fill, and assemble PDF documents\n  skill://pdf-processing/SKILL.md (4 file(s))\n' +
        'code-review: Review a change: correctness first, then clarity\n  skill://team/code-review/SKILL.md (1 file(s))\n',
    );
    const manifest = await call('skill', 'pdf-processing', '--era', era);
    assert.equal(manifest.code, 0, manifest.stderr);
    assert.equal(manifest.stdout, PDF_SKILL_MD);
    const forms = await call('skill', 'skill://pdf-processing/SKILL.md', 'references/FORMS.md', '--era', era);
    assert.equal(forms.stdout, FORMS_MD);
    const json = await call('skill', 'code-review', '--era', era, '--json');
    const result = JSON.parse(json.stdout);
    assert.equal(result.file.verified, true);
    assert.equal(result.skill.frontmatter.name, 'code-review');
  });
}

test('an unknown skill, or a file out of the skill, fails with what the server has', async () => {
  const unknown = await call('skill', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /serves no skill named "nope" \(it serves: pdf-processing, code-review\)/);
  const out = await call('skill', 'pdf-processing', '../../secret.txt');
  assert.equal(out.code, 1);
  assert.match(out.stderr, /is not a file of skill:\/\/pdf-processing\/SKILL.md/);
});

test('a skill added to the folder is served without a restart', async () => {
  await mkdir(join(root, 'notes'));
  await writeFile(
    join(root, 'notes', 'SKILL.md'),
    '---\nname: notes\ndescription: Take notes\n---\nWrite it down.\n',
  );
  // The folder is read again shortly after the change; each try is a whole `mcpwire call`.
  let listed = '';
  for (let tries = 0; tries < 30 && !listed.includes('notes: Take notes'); tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 300));
    listed = (await call('skills')).stdout;
  }
  assert.match(listed, /notes: Take notes/);
});

test('--skills names a folder, or serve says so', async () => {
  const bad = runCli(['serve', '--port', '0', '--skills', join(root, 'missing')]);
  bad.child.stdin.end();
  assert.equal(await bad.exit(10_000), 2);
  assert.match(bad.stderr(), /--skills takes a folder of skills .*missing is not a folder/);
});
