import assert from 'node:assert/strict';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '../../client/client.js';
import { createMemoryPair } from '../../peer/memory.js';
import { Server } from '../../server/server.js';
import { FORMS_MD, makeSkillsFolder, PDF_URI, REVIEW_URI } from '../../test-support/skills-folder.js';
import { until } from '../../test-support/time-limit.js';
import type { SkillWarning } from './catalog.js';
import { serveSkills } from './serve-skills.js';
import { SKILLS_EXTENSION } from './skill-types.js';
import { listSkills, readSkillFile } from './skills-client.js';

async function served(pageSize?: number) {
  const { root, outside } = await makeSkillsFolder();
  const server = new Server({ name: 'skills', version: '1' }, { pageSize });
  const warnings: SkillWarning[] = [];
  const skills = await serveSkills(server, root, (w) => warnings.push(w));
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  const session = await new Client({ name: 't', version: '1' }).connect(clientEnd);
  return { root, outside, server, skills, session, warnings };
}

const code = (expected: number) => (err: { code?: number }) => err.code === expected;

describe('serveSkills', () => {
  test('announces the extension and says why each skipped skill was skipped', async () => {
    const { session, warnings, skills } = await served();
    assert.deepEqual((session.serverCapabilities.extensions as Record<string, unknown>)[SKILLS_EXTENSION], {
      directoryRead: true,
    });
    assert.deepEqual(
      skills.skills.map((s) => s.uri),
      [PDF_URI, REVIEW_URI],
    );
    assert.deepEqual(
      warnings.map((w) => w.path),
      ['linked/secret.txt', 'no-description/SKILL.md', 'wrong-name/SKILL.md'],
    );
    assert.match(warnings[0]!.message, /symbolic links .* not followed/);
    assert.match(warnings[2]!.message, /must be the name of the skill's folder, "wrong-name"/);
    await session.close();
  });

  test('skills/list pages by URI, and a cursor it did not issue is -32602', async () => {
    const { session } = await served(1);
    const first = await session.request<{ skills: { uri: string }[]; nextCursor?: string }>('skills/list');
    assert.deepEqual(
      first.skills.map((s) => s.uri),
      [PDF_URI],
    );
    assert.equal(typeof first.nextCursor, 'string');
    assert.deepEqual(
      (await listSkills(session)).map((s) => s.uri),
      [PDF_URI, REVIEW_URI],
    );
    await assert.rejects(session.request('skills/list', { cursor: 'bm9wZQ' }), code(-32602));
    await assert.rejects(session.request('skills/get', {}), /params.uri must be a string/);
    await assert.rejects(
      session.request('resources/directory/read', { uri: 'skill://nowhere' }),
      /not a folder of a served skill/,
    );
    await session.close();
  });

  test('a folder replaced by a link out after listing is never read through', async () => {
    const { root, outside, session, skills } = await served();
    const pdf = (await listSkills(session))[0]!;
    // The same bytes, reached through a link: still refused, as the link could point anywhere.
    await mkdir(join(outside, 'references'));
    await writeFile(join(outside, 'references', 'FORMS.md'), FORMS_MD);
    await rename(join(root, 'pdf-processing', 'references'), join(root, 'pdf-processing', 'moved'));
    await symlink(join(outside, 'references'), join(root, 'pdf-processing', 'references'));
    await assert.rejects(
      readSkillFile(session, pdf, 'references/FORMS.md'),
      /changed since the skills were listed/,
    );
    // The folder read again skips the skill that now holds a link.
    await skills.reload();
    assert.deepEqual(
      skills.skills.map((s) => s.uri),
      [REVIEW_URI],
    );
    await session.close();
  });

  test('watch: a skill added or removed reaches clients as resources/list_changed', async () => {
    const { root, session, skills } = await served();
    let changes = 0;
    session.on('resourcesChanged', () => changes++);
    skills.watch(20);
    try {
      await mkdir(join(root, 'notes'));
      await writeFile(join(root, 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Take notes\n---\n');
      await until(() => changes >= 1, 10_000, 'no list_changed after a skill was added');
      assert.ok((await listSkills(session)).some((s) => s.uri === 'skill://notes/SKILL.md'));
      await rm(join(root, 'notes'), { recursive: true });
      await until(() => changes >= 2, 10_000, 'no list_changed after a skill was removed');
      assert.ok(!(await listSkills(session)).some((s) => s.uri === 'skill://notes/SKILL.md'));
    } finally {
      skills.close();
      await session.close();
    }
  });

  test('a method an extension adds cannot take the name of one the server has', async () => {
    const { server } = await served();
    const answer = () => ({});
    assert.throws(
      () => server.addMethod('skills/list', { answer, cacheable: true }),
      /already has a method "skills\/list"/,
    );
    assert.throws(
      () => server.addMethod('tools/list', { answer, cacheable: true }),
      /already has a method "tools\/list"/,
    );
  });

  test('a folder that cannot be read rejects', async () => {
    const server = new Server({ name: 'skills', version: '1' });
    await assert.rejects(serveSkills(server, '/nonexistent/skills'), /ENOENT/);
  });
});
