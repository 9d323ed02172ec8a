import { createHash } from 'node:crypto';
import type { Resource } from '../../protocol/types.js';
import { type FolderEntry, readRegularFile, walkFolder } from './folder-walk.js';
import { asSkillFrontmatter, FrontmatterError, readSkillMarkdown } from './frontmatter.js';
import { mimeTypeOf } from './mime-types.js';
import { frontmatterProblems } from './skill-rules.js';
import {
  DIRECTORY_MIME_TYPE,
  type DirectoryEntry,
  SKILL_LIMITS,
  type Skill,
  type SkillFile,
} from './skill-types.js';

/** A file a catalog serves: where it is under the skills folder, and what its entry promised. */
export interface CatalogFile extends SkillFile {
  /** Its path from the skills folder, `/`-separated. */
  path: string;
  mimeType: string;
}

/** Something in the skills folder that is not served, and why. */
export interface SkillWarning {
  /** The path from the skills folder. */
  path: string;
  message: string;
}

/** What a skills folder held when it was read: everything the extension answers from. */
export interface Catalog {
  /** The skills, by the URI of their SKILL.md, in URI order. */
  readonly skills: ReadonlyMap<string, Skill>;
  /** Every file of every skill, by URI. */
  readonly files: ReadonlyMap<string, CatalogFile>;
  /** The children of each skill's folder and of each folder inside one, by the folder's URI (no trailing `/`). */
  readonly directories: ReadonlyMap<string, readonly DirectoryEntry[]>;
  /** Each skill's SKILL.md as `resources/list` shows it: named and described by its front matter. */
  readonly manifests: readonly Resource[];
}

const MANIFEST = 'SKILL.md';
const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const byUri = (a: { uri: string }, b: { uri: string }): number =>
  a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;

/** `skill://` and the path's segments, each percent-encoded; undefined when the URI would not read back the same. */
export function skillUriOf(path: string): string | undefined {
  const uri = `skill://${path.split('/').map(encodeURIComponent).join('/')}`;
  try {
    return new URL(uri).href === uri ? uri : undefined;
  } catch {
    return undefined;
  }
}

/** The `sha256:` digest of `bytes`, as entries carry it. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * Reads a skills folder: each folder under it holding a `SKILL.md` is a skill, named by that folder, with every
 * file below it. A skill is left out, with a warning, when its front matter breaks a rule, it holds a symbolic
 * link or special file (never followed: nothing outside the folder is served), a name cannot be a URI, or it
 * passes the limits hosts accept.
 */
export async function loadCatalog(folder: string, warn: (w: SkillWarning) => void): Promise<Catalog> {
  const tree = await walkFolder(folder);
  const skillDirs = tree
    .filter((e) => e.kind === 'file' && baseName(e.path) === MANIFEST)
    .map((e) => parentOf(e.path));
  const skills: Skill[] = [];
  const files = new Map<string, CatalogFile>();
  const directories = new Map<string, DirectoryEntry[]>();
  const manifests: Resource[] = [];
  const names = new Map<string, string>();
  for (const dir of skillDirs) {
    if (dir === '') {
      warn({
        path: MANIFEST,
        message: 'a SKILL.md at the top has no folder to name it: serve its parent (skipped)',
      });
      continue;
    }
    const inside = tree.filter((e) => e.path.startsWith(`${dir}/`));
    const built = await buildSkill(folder, dir, inside, warn);
    if (built === undefined) continue;
    const { skill, own } = built;
    const name = skill.frontmatter.name;
    const twin = names.get(name);
    if (twin !== undefined) warn({ path: dir, message: `another skill is also named "${name}" (${twin})` });
    names.set(name, dir);
    skills.push(skill);
    for (const file of own) files.set(file.uri, file);
    const manifest = own.find((f) => f.path === `${dir}/${MANIFEST}`)!;
    manifests.push({
      uri: skill.uri,
      name,
      description: skill.frontmatter.description,
      mimeType: 'text/markdown',
      size: manifest.size,
    } as Resource);
    for (const folderPath of [dir, ...inside.filter((e) => e.kind === 'directory').map((e) => e.path)]) {
      directories.set(skillUriOf(folderPath)!, childrenOf(folderPath, tree, files));
    }
  }
  skills.sort(byUri);
  manifests.sort(byUri);
  return { skills: new Map(skills.map((s) => [s.uri, s])), files, directories, manifests };
}

async function buildSkill(
  folder: string,
  dir: string,
  inside: FolderEntry[],
  warn: (w: SkillWarning) => void,
): Promise<{ skill: Skill; own: CatalogFile[] } | undefined> {
  const skip = (path: string, message: string): undefined => {
    warn({ path, message: `${message} (skill skipped)` });
    return undefined;
  };
  const other = inside.find((e) => e.kind === 'other');
  if (other !== undefined) {
    return skip(
      other.path,
      'symbolic links and special files are not followed: copy the file into the skill',
    );
  }
  const uri = skillUriOf(`${dir}/${MANIFEST}`);
  const unnamed = [dir, ...inside.map((e) => e.path)].find((path) => skillUriOf(path) === undefined);
  if (uri === undefined || unnamed !== undefined)
    return skip(unnamed ?? dir, 'this name cannot be part of a URI');
  const own: CatalogFile[] = [];
  let bytesTotal = 0;
  let manifestText: string | undefined;
  for (const entry of inside) {
    if (entry.kind !== 'file') continue;
    const bytes = await readRegularFile(folder, entry.path);
    bytesTotal += bytes.byteLength;
    if (entry.path === `${dir}/${MANIFEST}`) manifestText = new TextDecoder().decode(bytes);
    own.push({
      path: entry.path,
      uri: skillUriOf(entry.path)!,
      digest: digestOf(bytes),
      size: bytes.byteLength,
      mimeType: mimeTypeOf(baseName(entry.path)),
    });
  }
  if (own.length > SKILL_LIMITS.files || bytesTotal > SKILL_LIMITS.bytes) {
    return skip(
      dir,
      `${own.length} files, ${bytesTotal} bytes: more than hosts must accept (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes)`,
    );
  }
  let frontmatter: Record<string, unknown>;
  try {
    frontmatter = readSkillMarkdown(manifestText!).frontmatter;
  } catch (err) {
    if (err instanceof FrontmatterError) return skip(`${dir}/${MANIFEST}`, err.message);
    throw err;
  }
  const problems = frontmatterProblems(frontmatter, baseName(dir));
  if (problems.length > 0) return skip(`${dir}/${MANIFEST}`, problems.join('; '));
  const resources = own.map(({ uri, digest, size }) => ({ uri, digest, size })).sort(byUri);
  return { skill: { uri, frontmatter: asSkillFrontmatter(frontmatter)!, resources }, own };
}

function childrenOf(dir: string, tree: FolderEntry[], files: Map<string, CatalogFile>): DirectoryEntry[] {
  const children: DirectoryEntry[] = [];
  for (const entry of tree) {
    if (parentOf(entry.path) !== dir || entry.kind === 'other') continue;
    const uri = skillUriOf(entry.path)!;
    const name = baseName(entry.path);
    if (entry.kind === 'directory') children.push({ uri, name, mimeType: DIRECTORY_MIME_TYPE });
    else children.push({ uri, name, mimeType: files.get(uri)!.mimeType, size: files.get(uri)!.size });
  }
  return children.sort(byUri);
}
