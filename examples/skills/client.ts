// A host reading the skills of `mcpwire serve --skills examples/skills/skills` (or of the URL given).
import { Client, connectUrl } from 'mcpwire/client';
import { listSkills, readSkillFile } from 'mcpwire/skills';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/mcp';
const session = await connectUrl(new Client({ name: 'my-host', version: '1.0.0' }), url);
const skills = await listSkills(session);
for (const skill of skills) console.log(`${skill.frontmatter.name}: ${skill.frontmatter.description}`);
// Loading a skill reads its SKILL.md, checked against the digest, size and front matter the list gave.
if (skills[0] !== undefined) console.log((await readSkillFile(session, skills[0])).body);
await session.close();
