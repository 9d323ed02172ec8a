// A skills folder on disk for the Skills tests: two good skills (one under a prefix folder, with a binary file
// and a subfolder), and the ones a server must skip, each for one rule.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const PDF_SKILL_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  author: mcpwire tests
  version: "1.0"
allowed-tools: [read_file, run]
---

# PDF processing

Fill a form with [the forms guide](references/FORMS.md), then run \`scripts/fill.py\`.
`;
export const FORMS_MD = '# Forms\n\nEach field has a name and a value.\n';
export const FILL_PY = 'print("filled")\n';
/** Not UTF-8: served as a base64 blob. */
export const LOGO_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x01]);
export const REVIEW_SKILL_MD = `---
name: code-review
description: "Review a change: correctness first, then clarity"
---
Read the diff twice.
`;

/** The URIs the good skills are served at. */
export const PDF_URI = 'skill://pdf-processing/SKILL.md';
export const REVIEW_URI = 'skill://team/code-review/SKILL.md';

async function put(root: string, path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

/**
 * A fresh folder: `pdf-processing` (SKILL.md, references/FORMS.md, scripts/fill.py, assets/logo.png) and
 * `team/code-review`, served; `wrong-name` (front matter names another folder), `no-description`, `linked`
 * (holds a symbolic link to a file outside the folder) and `secret.txt` beside the skills, never served;
 * `outside/` is a sibling of the folder, which a link points into.
 */
export async function makeSkillsFolder(): Promise<{ root: string; outside: string }> {
  const base = await mkdtemp(join(tmpdir(), 'mcpwire-skills-'));
  const root = join(base, 'skills');
  const outside = join(base, 'outside');
  await put(outside, 'secret.txt', 'not for clients\n');
  await put(root, 'pdf-processing/SKILL.md', PDF_SKILL_MD);
  await put(root, 'pdf-processing/references/FORMS.md', FORMS_MD);
  await put(root, 'pdf-processing/scripts/fill.py', FILL_PY);
  await put(root, 'pdf-processing/assets/logo.png', LOGO_BYTES);
  await put(root, 'team/code-review/SKILL.md', REVIEW_SKILL_MD);
  await put(
    root,
    'wrong-name/SKILL.md',
    '---\nname: other-name\ndescription: named for another folder\n---\n',
  );
  await put(root, 'no-description/SKILL.md', '---\nname: no-description\n---\n');
  await put(root, 'linked/SKILL.md', '---\nname: linked\ndescription: holds a link out\n---\n');
  await symlink(join(outside, 'secret.txt'), join(root, 'linked', 'secret.txt'));
  await put(root, 'secret.txt', 'beside the skills, in no skill\n');
  return { root, outside };
}
