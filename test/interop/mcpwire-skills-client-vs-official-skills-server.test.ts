// mcpwire's skills client (listSkills, getSkill, readSkillFile, readSkillDirectory) against skills served by
// the official server 2.4.0 (`loadSkills` of `@modelcontextprotocol/server/ext/skills/node`, attached to each
// McpServer of `createMcpHandler`), in both eras: every entry passes mcpwire's checks and every file verifies.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';
import { Client, type EraPreference } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import {
  getSkill,
  listSkills,
  readSkillDirectory,
  readSkillFile,
} from '../../src/extensions/skills/skills-client.js';
import { type Served, serveOn } from '../../src/test-support/mcp-http.js';
import {
  FORMS_MD,
  LOGO_BYTES,
  makeSkillsFolder,
  PDF_SKILL_MD,
  PDF_URI,
  REVIEW_URI,
} from '../../src/test-support/skills-folder.js';

let served: Served;
let close: () => Promise<void>;
before(async () => {
  const { root } = await makeSkillsFolder();
  const catalog = await loadSkills(root, { onWarning: () => {} });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'official-skills', version: '2.4.0' });
      catalog.attach(server);
      return server;
    },
    { legacy: 'stateless' },
  );
  served = await serveOn(toNodeHandler(handler));
  close = () => handler.close();
});
after(async () => {
  await close?.();
  await served?.close();
});

for (const era of ['modern', 'legacy'] as EraPreference[]) {
  describe(`mcpwire's skills client, ${era} era, against the official server's skills`, () => {
    let session: ClientSession;
    before(async () => {
      session = await connectUrl(new Client({ name: 'mcpwire-host', version: '1.0.0' }, { era }), served.url);
    });
    after(() => session?.close());

    test('lists the good skills, each entry valid', async () => {
      assert.equal(session.era, era);
      const skills = await listSkills(session);
      assert.deepEqual(
        skills.map((s) => s.uri),
        [PDF_URI, REVIEW_URI],
      );
    });

    test('reads and verifies every file, the SKILL.md front matter included', async () => {
      const pdf = await getSkill(session, PDF_URI);
      const manifest = await readSkillFile(session, pdf);
      assert.equal(manifest.text, PDF_SKILL_MD);
      assert.equal(manifest.frontmatter?.name, 'pdf-processing');
      assert.match(manifest.body ?? '', /^\n# PDF processing/);
      assert.equal((await readSkillFile(session, pdf, 'references/FORMS.md')).text, FORMS_MD);
      assert.deepEqual([...(await readSkillFile(session, pdf, 'assets/logo.png')).bytes], [...LOGO_BYTES]);
      for (const file of pdf.resources as { uri: string }[]) {
        assert.equal((await readSkillFile(session, pdf, file.uri)).verified, true, file.uri);
      }
    });

    test('reads a skill folder', async () => {
      const children = await readSkillDirectory(session, 'skill://pdf-processing');
      assert.deepEqual(
        children.map((c) => c.name),
        ['SKILL.md', 'assets', 'references', 'scripts'],
      );
    });
  });
}
