import type { ClientSession } from '../client/client-session.js';
import type { Skill } from '../extensions/skills/skill-types.js';
import { getSkill, listSkills, readSkillFile } from '../extensions/skills/skills-client.js';
import type { RequestOptions } from '../peer/peer-options.js';

/** `mcpwire call URL skills`: one line per skill, its name and description, then its URI and file count. */
export function formatSkills(skills: readonly Skill[]): string {
  if (skills.length === 0) return '(no skills)\n';
  return skills
    .map((skill) => {
      const files = skill.resources === 'dynamic' ? 'files not listed' : `${skill.resources.length} file(s)`;
      return `${skill.frontmatter.name}: ${skill.frontmatter.description}\n  ${skill.uri} (${files})\n`;
    })
    .join('');
}

/**
 * `mcpwire call URL skill NAME|URI [FILE]`: the skill's SKILL.md (or FILE, a path in its folder), printed only
 * once it matched the digest and size the server listed (and, for SKILL.md, the front matter). A name is looked
 * up in skills/list; a URI is asked for with skills/get. The result (for --json) is the entry and the file.
 */
export async function skillFile(
  session: ClientSession,
  skill: string,
  file: string | undefined,
  options: RequestOptions,
): Promise<{ result: unknown; text: string; failed: boolean }> {
  const entry = skill.includes('://')
    ? await getSkill(session, skill, options)
    : await named(session, skill, options);
  const read = await readSkillFile(session, entry, file, options);
  const text =
    read.text ?? `(${read.bytes.byteLength} bytes of ${read.mimeType ?? 'binary data'}: use --json)\n`;
  const { bytes, ...rest } = read;
  const content = read.text === undefined ? { ...rest, blob: Buffer.from(bytes).toString('base64') } : rest;
  return { result: { skill: entry, file: content }, text, failed: false };
}

async function named(session: ClientSession, name: string, options: RequestOptions): Promise<Skill> {
  const skills = await listSkills(session, options);
  const found = skills.filter((s) => s.frontmatter.name === name);
  if (found.length === 0) {
    const names = skills.map((s) => s.frontmatter.name).join(', ') || 'none';
    throw new Error(`The server serves no skill named "${name}" (it serves: ${names})`);
  }
  if (found.length > 1) {
    throw new Error(
      `The server serves ${found.length} skills named "${name}": give a URI (${found.map((s) => s.uri).join(', ')})`,
    );
  }
  return found[0]!;
}
