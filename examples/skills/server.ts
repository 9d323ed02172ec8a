// Agent skills served on stdio (`npx tsx server.ts`): each folder under ./skills that holds a SKILL.md.
import { fileURLToPath } from 'node:url';
import { Server, serveStdio } from 'mcpwire/server';
import { serveSkills } from 'mcpwire/skills';

const server = new Server({ name: 'team-skills', version: '1.0.0' });
const skills = await serveSkills(server, fileURLToPath(new URL('./skills', import.meta.url)));
// A skill added, edited or removed is served at once, and clients are told the list changed.
skills.watch();

serveStdio(server);
