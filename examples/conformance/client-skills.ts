// The fixture client's actions for the Skills extension's client scenarios (SEP-2640, conformance
// 0.2.0-alpha.12, run by scripts/conformance-skills.sh): a host lists skills without reading a file of any
// (no prefetch), and loads a skill only through readSkillFile, which refuses a SKILL.md whose digest, size or
// front matter differs from its entry; a refused skill's other files are never asked for.

import type { ClientSession } from '../../src/client/client-session.js';
import type { SkillFile } from '../../src/extensions/skills/skill-types.js';
import { listSkills, readSkillFile } from '../../src/extensions/skills/skills-client.js';
import { log, type Scenario } from './client-scenario.js';

/** Lists, then loads the first skill as a host would when its model asks for it: SKILL.md, then each link. */
async function loadFirstSkill(session: ClientSession): Promise<void> {
  const [skill] = await listSkills(session);
  if (skill === undefined) throw new Error('the server lists no skill');
  let body: string;
  try {
    body = (await readSkillFile(session, skill)).body ?? '';
  } catch (err) {
    log(`skill ${skill.uri} not loaded: ${(err as Error).message}`);
    return;
  }
  log(`loaded ${skill.uri}`);
  // A supporting file is read when the skill's text points to it, and only if it is one the entry lists.
  const listed = skill.resources === 'dynamic' ? [] : (skill.resources as SkillFile[]).map((f) => f.uri);
  for (const [, ref] of body.matchAll(/\]\(([^)\s#]+)\)/g)) {
    const uri = new URL(ref!, skill.uri).href;
    if (!listed.includes(uri)) continue;
    const file = await readSkillFile(session, skill, ref);
    log(`read ${file.uri} (${file.bytes.byteLength} bytes, verified)`);
  }
}

export const SCENARIOS_SKILLS: Record<string, Scenario> = {
  // Listing is not loading: no file of any skill is read.
  'sep-2640-client-no-prefetch': async (session) => {
    const skills = await listSkills(session);
    log(`listed ${skills.map((s) => s.frontmatter.name).join(', ')}; nothing loaded`);
  },
  'sep-2640-client-verify-digest': loadFirstSkill,
  'sep-2640-client-verify-size': loadFirstSkill,
  'sep-2640-client-verify-frontmatter': loadFirstSkill,
};
