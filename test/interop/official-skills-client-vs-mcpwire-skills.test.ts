// A folder of skills served by mcpwire's serveSkills, read by the official client 2.4.0's SkillsClient
// (`@modelcontextprotocol/client/ext/skills`) in both eras (2025-11-25 sessions and 2026-07-28 requests): it
// lists, gets and reads every file, checking each against the sha256 digest and size of its entry and a
// SKILL.md's front matter against the entry's; it reads folders with resources/directory/read. Skills that
// break a rule or hold a link out of the folder are not served, and nothing outside the folder is readable.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { type ServedSkills, serveSkills } from '../../src/extensions/skills/serve-skills.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { type Served, serveOn } from '../../src/test-support/mcp-http.js';
import {
  FILL_PY,
  FORMS_MD,
  LOGO_BYTES,
  makeSkillsFolder,
  PDF_SKILL_MD,
  PDF_URI,
  REVIEW_URI,
} from '../../src/test-support/skills-folder.js';

let served: Served;
let skills: ServedSkills;
let root: string;
before(async () => {
  ({ root } = await makeSkillsFolder());
  const server = new Server({ name: 'skills-interop', version: '1.0.0' });
  skills = await serveSkills(server, root, () => {});
  served = await serveOn(new StreamableHTTPHandler(server).node());
});
after(async () => {
  skills?.close();
  await served?.close();
});

const eras = { '2025-11-25 session': undefined, '2026-07-28 requests': '2026-07-28' } as const;

for (const [era, pin] of Object.entries(eras)) {
  describe(`the official SkillsClient 2.4.0 over ${era}`, () => {
    let client: ClientV2;
    let host: SkillsClient;
    before(async () => {
      client = new ClientV2(
        { name: 'skills-host', version: '1.0.0' },
        pin === undefined ? {} : { versionNegotiation: { mode: { pin } } },
      );
      await client.connect(new TransportV2(new URL(served.url)));
      host = new SkillsClient(client);
    });
    after(() => client?.close());

    test('the extension is announced with directoryRead', () => {
      assert.equal(host.supported, true);
      assert.equal(host.directoryRead, true);
      assert.equal(client.getNegotiatedProtocolVersion(), pin ?? '2025-11-25');
    });

    test('skills/list: the two good skills, valid to the host, with caching fields only in 2026', async () => {
      const listed = await host.list();
      assert.deepEqual(listed.invalid, []);
      assert.deepEqual(
        listed.skills.map((s) => [s.uri, s.frontmatter.name]),
        [
          [PDF_URI, 'pdf-processing'],
          [REVIEW_URI, 'code-review'],
        ],
      );
      const pdf = listed.skills[0]!;
      assert.deepEqual(pdf.frontmatter.metadata, { author: 'mcpwire tests', version: '1.0' });
      assert.deepEqual(pdf.frontmatter['allowed-tools'], ['read_file', 'run']);
      assert.equal((pdf.resources as unknown[]).length, 4);
      assert.equal(listed.ttlMs, pin === undefined ? undefined : 0);
    });

    test('every file read verifies against its entry: text, a binary blob, and the front matter', async () => {
      const [pdf] = (await host.list()).skills;
      const manifest = await host.read(pdf!);
      assert.equal(manifest.verified, true);
      assert.equal(manifest.text, PDF_SKILL_MD);
      assert.equal(manifest.frontmatter?.license, 'Apache-2.0');
      assert.equal((await host.read(pdf!, 'references/FORMS.md')).text, FORMS_MD);
      assert.equal((await host.read(pdf!, 'scripts/fill.py')).text, FILL_PY);
      const logo = await host.read(pdf!, 'assets/logo.png');
      assert.deepEqual([...logo.bytes], [...LOGO_BYTES]);
      assert.equal(logo.mimeType, 'image/png');
    });

    test('skills/get finds a skill under a prefix folder, and refuses an unknown URI with -32602', async () => {
      const { skill } = await host.get(REVIEW_URI);
      assert.equal(skill.frontmatter.description, 'Review a change: correctness first, then clarity');
      await assert.rejects(
        host.get('skill://wrong-name/SKILL.md'),
        (err: { code?: number }) => err.code === -32602,
      );
    });

    test('resources/directory/read: a skill folder and a folder in it', async () => {
      const top = await host.readDirectory('skill://pdf-processing');
      assert.deepEqual(
        top.resources.map((r) => [r.name, r.mimeType]),
        [
          ['SKILL.md', 'text/markdown'],
          ['assets', 'inode/directory'],
          ['references', 'inode/directory'],
          ['scripts', 'inode/directory'],
        ],
      );
      const refs = await host.readDirectory('skill://pdf-processing/references');
      assert.deepEqual(refs.resources, [
        {
          uri: 'skill://pdf-processing/references/FORMS.md',
          name: 'FORMS.md',
          mimeType: 'text/markdown',
          size: FORMS_MD.length,
        },
      ]);
    });

    test('resources/list names each SKILL.md by its front matter', async () => {
      const { resources } = await client.listResources();
      const pdf = resources.find((r) => r.uri === PDF_URI);
      assert.equal(pdf?.name, 'pdf-processing');
      assert.equal(pdf?.description, 'Extract, fill, and assemble PDF documents');
      assert.equal(pdf?.mimeType, 'text/markdown');
    });

    test('nothing outside a served skill is readable, however the URI is spelled', async () => {
      for (const uri of [
        'skill://linked/secret.txt',
        'skill://secret.txt',
        'skill://pdf-processing/../secret.txt',
        'skill://pdf-processing/%2e%2e/%2e%2e/outside/secret.txt',
        'skill://pdf-processing/references/..%2f..%2f..%2foutside%2fsecret.txt',
      ]) {
        await assert.rejects(client.readResource({ uri }), /not found/i, uri);
      }
    });
  });
}

test('a file changed on disk after listing is refused, then served again once the folder is read', async () => {
  const client = new ClientV2({ name: 'skills-host', version: '1.0.0' });
  await client.connect(new TransportV2(new URL(served.url)));
  try {
    const host = new SkillsClient(client);
    const [pdf] = (await host.list()).skills;
    await writeFile(join(root, 'pdf-processing', 'references', 'FORMS.md'), '# Forms, edited\n');
    await assert.rejects(host.read(pdf!, 'references/FORMS.md'), /changed since the skills were listed/);
    await skills.reload();
    const [again] = (await host.list()).skills;
    assert.equal((await host.read(again!, 'references/FORMS.md')).text, '# Forms, edited\n');
  } finally {
    await client.close();
  }
});
