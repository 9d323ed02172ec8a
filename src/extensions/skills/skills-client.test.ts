import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { Client } from '../../client/client.js';
import { createMemoryPair } from '../../peer/memory.js';
import { Server } from '../../server/server.js';
import { SKILLS_EXTENSION, type Skill } from './skill-types.js';
import { getSkill, listSkills, readSkillFile } from './skills-client.js';

const MD = '---\nname: pdf\ndescription: Read PDFs\n---\nBody\n';
const GUIDE = 'guide\n';
const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const entry = (): Skill => ({
  uri: 'skill://pdf/SKILL.md',
  frontmatter: { name: 'pdf', description: 'Read PDFs' },
  resources: [
    { uri: 'skill://pdf/SKILL.md', digest: digest(MD), size: MD.length },
    { uri: 'skill://pdf/GUIDE.md', digest: digest(GUIDE), size: GUIDE.length },
  ],
});

/** A server that serves `files` as they are, whatever the entries it lists say: a server that lies. */
async function lying(skills: unknown[], files: Record<string, string>) {
  const server = new Server({ name: 'liar', version: '1' });
  const reads: string[] = [];
  server.addMethod('skills/list', { cacheable: true, answer: () => ({ skills }) });
  server.addMethod('skills/get', { cacheable: true, answer: () => ({ skill: skills[0] }) });
  for (const [uri, text] of Object.entries(files)) {
    server.resource({ uri, name: uri }, () => {
      reads.push(uri);
      return { contents: [{ uri, text }] };
    });
  }
  server.announceExtension(SKILLS_EXTENSION);
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(serverEnd);
  const session = await new Client({ name: 't', version: '1' }).connect(clientEnd);
  return { session, reads };
}

const because = (reason: string) => (err: { name?: string; reason?: string }) =>
  err.name === 'SkillVerificationError' && err.reason === reason;

describe('the skills client checks what a server sends before anything uses it', () => {
  test('a file whose bytes are not the listed digest, or size, is refused', async () => {
    const { session } = await lying([entry()], {
      'skill://pdf/SKILL.md': MD,
      'skill://pdf/GUIDE.md': 'evil!\n',
    });
    const [skill] = await listSkills(session);
    assert.equal((await readSkillFile(session, skill!)).body, 'Body\n');
    await assert.rejects(readSkillFile(session, skill!, 'GUIDE.md'), because('digest'));
    const longer = await lying([entry()], {
      'skill://pdf/SKILL.md': `${MD}more`,
      'skill://pdf/GUIDE.md': GUIDE,
    });
    await assert.rejects(
      readSkillFile(longer.session, (await listSkills(longer.session))[0]!),
      because('size'),
    );
  });

  test('a SKILL.md whose front matter differs from its entry is refused, naming the field', async () => {
    const evil = '---\nname: pdf\ndescription: Exfiltrate credentials\n---\nBody\n';
    const listed = entry();
    (listed.resources as { digest: string; size: number }[])[0] = {
      ...(listed.resources as { uri: string }[])[0]!,
      digest: digest(evil),
      size: evil.length,
    } as never;
    const { session } = await lying([listed], { 'skill://pdf/SKILL.md': evil });
    await assert.rejects(readSkillFile(session, (await listSkills(session))[0]!), (err: Error) => {
      assert.match(err.message, /description: the entry has "Read PDFs", SKILL.md "Exfiltrate credentials"/);
      return true;
    });
  });

  test('a file the entry does not list is refused before it is asked for', async () => {
    const { session, reads } = await lying([entry()], {
      'skill://pdf/SKILL.md': MD,
      'skill://pdf/OTHER.md': 'x',
    });
    const [skill] = await listSkills(session);
    await assert.rejects(readSkillFile(session, skill!, 'OTHER.md'), because('unlisted'));
    await assert.rejects(readSkillFile(session, skill!, '../other/SKILL.md'), because('unlisted'));
    assert.deepEqual(reads, []);
  });

  test('an invalid entry rejects the listing, naming the rule', async () => {
    const outside = {
      ...entry(),
      resources: [
        ...(entry().resources as object[]),
        { uri: 'skill://other/x', digest: digest(''), size: 0 },
      ],
    };
    const { session } = await lying([outside], {});
    await assert.rejects(listSkills(session), /skill:\/\/other\/x" is not inside the skill's folder/);
    const misnamed = { ...entry(), frontmatter: { name: 'docx', description: 'x' } };
    const second = await lying([misnamed], {});
    await assert.rejects(
      getSkill(second.session, 'skill://pdf/SKILL.md'),
      /must be the name of the skill's folder/,
    );
  });

  test('a server without the extension, or whose settings for it are a list, is not asked', async () => {
    let asked = 0;
    const refused = async (server: Server) => {
      const [clientEnd, serverEnd] = createMemoryPair();
      server.connect(serverEnd);
      const session = await new Client({ name: 't', version: '1' }).connect(clientEnd);
      await assert.rejects(
        listSkills(session),
        /did not announce the io.modelcontextprotocol\/skills extension/,
      );
    };
    await refused(new Server({ name: 'plain', version: '1' }));
    const odd = new Server({ name: 'odd', version: '1' });
    odd.addMethod('skills/list', {
      cacheable: true,
      answer: () => {
        asked++;
        return { skills: [] };
      },
    });
    odd.announceExtension(SKILLS_EXTENSION, [] as unknown as Record<string, never>);
    await refused(odd);
    assert.equal(asked, 0);
  });
});
