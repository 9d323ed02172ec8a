// `mcpwire/skills`: the Skills extension (SEP-2640): a server serves a folder of agent skills; a client lists,
// gets and reads them, each file checked against its entry.

export type { SkillWarning } from './catalog.js';
export { FrontmatterError, readSkillMarkdown, type SkillMarkdown } from './frontmatter.js';
export { type ServedSkills, serveSkills } from './serve-skills.js';
export {
  DIRECTORY_MIME_TYPE,
  type DirectoryEntry,
  SKILL_LIMITS,
  SKILLS_EXTENSION,
  type Skill,
  type SkillFile,
  type SkillFrontmatter,
  type SkillsCapability,
  SkillsMethod,
} from './skill-types.js';
export {
  getSkill,
  listSkills,
  readSkillDirectory,
  readSkillFile,
  type SkillFileContent,
  SkillVerificationError,
  skillsOf,
} from './skills-client.js';
