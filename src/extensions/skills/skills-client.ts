import type { ClientSession } from '../../client/client-session.js';
import { paginate } from '../../client/paginate.js';
import { isObject } from '../../jsonrpc/parse.js';
import { CapabilityError } from '../../peer/errors.js';
import type { RequestOptions } from '../../peer/peer-options.js';
import { fromBase64 } from '../../util/base64.js';
import { FrontmatterError, readSkillMarkdown } from './frontmatter.js';
import { canonicalUri, isWithin, skillProblems, skillRoot } from './skill-rules.js';
import {
  type DirectoryEntry,
  SKILLS_EXTENSION,
  type Skill,
  type SkillFile,
  type SkillsCapability,
  SkillsMethod,
} from './skill-types.js';

/** Why a skill file read from a server was not trusted; a host must not load it (for a SKILL.md, the skill). */
export class SkillVerificationError extends Error {
  override name = 'SkillVerificationError';
  constructor(
    readonly reason: 'unlisted' | 'size' | 'digest' | 'frontmatter' | 'invalid',
    readonly uri: string,
    message: string,
  ) {
    super(message);
  }
}

/** A skill file read and checked against its entry. */
export interface SkillFileContent {
  uri: string;
  mimeType?: string;
  bytes: Uint8Array;
  /** The text, when the server sent text (or the bytes are UTF-8). */
  text?: string;
  /** True when its size and digest were checked; false for a `"dynamic"` skill, whose files are not listed. */
  verified: boolean;
  /** For a SKILL.md: its front matter (equal to the entry's) and the markdown after it. */
  frontmatter?: Record<string, unknown>;
  body?: string;
}

/** The extension's settings the server announced; undefined when it serves no skills. */
export function skillsOf(session: ClientSession): SkillsCapability | undefined {
  const extensions = session.serverCapabilities.extensions as Record<string, unknown> | undefined;
  const settings = extensions?.[SKILLS_EXTENSION];
  return isObject(settings) ? (settings as SkillsCapability) : undefined;
}

function requireSkills(session: ClientSession, method: string): void {
  if (skillsOf(session) === undefined) {
    throw new CapabilityError(
      `The server did not announce the ${SKILLS_EXTENSION} extension, so ${method} was not sent`,
    );
  }
}

function checked(value: unknown, method: string): Skill {
  const problems = skillProblems(value);
  if (problems.length > 0) {
    const uri = (value as { uri?: unknown } | null)?.uri;
    throw new SkillVerificationError(
      'invalid',
      String(uri),
      `${method} answered an invalid skill ${String(uri)}: ${problems.join('; ')}`,
    );
  }
  return value as Skill;
}

/** Every skill the server serves, page after page, each entry checked (an invalid one rejects, naming why). */
export async function listSkills(session: ClientSession, options?: RequestOptions): Promise<Skill[]> {
  requireSkills(session, SkillsMethod.List);
  const skills: Skill[] = [];
  const pages = paginate<{ skills: unknown[] }, unknown>(SkillsMethod.List, 'skills', (cursor) =>
    session.request(SkillsMethod.List, cursor === undefined ? undefined : { cursor }, options),
  );
  for await (const entry of pages) skills.push(checked(entry, SkillsMethod.List));
  return skills;
}

/** One skill by the URI of its SKILL.md, listed or not; rejects when the answer is another skill or invalid. */
export async function getSkill(
  session: ClientSession,
  uri: string,
  options?: RequestOptions,
): Promise<Skill> {
  requireSkills(session, SkillsMethod.Get);
  const { skill } = await session.request<{ skill?: unknown }>(SkillsMethod.Get, { uri }, options);
  const entry = checked(skill, SkillsMethod.Get);
  if (canonicalUri(entry.uri) !== canonicalUri(uri)) {
    throw new SkillVerificationError('invalid', uri, `skills/get for ${uri} answered ${entry.uri}`);
  }
  return entry;
}

/** The direct children of a skill's folder (or of a folder in it); needs the server's `directoryRead`. */
export async function readSkillDirectory(
  session: ClientSession,
  uri: string,
  options?: RequestOptions,
): Promise<DirectoryEntry[]> {
  if (skillsOf(session)?.directoryRead !== true) {
    throw new CapabilityError(
      `The server did not announce directoryRead, so ${SkillsMethod.DirectoryRead} was not sent`,
    );
  }
  const children: DirectoryEntry[] = [];
  const pages = paginate<{ resources: DirectoryEntry[] }, DirectoryEntry>(
    SkillsMethod.DirectoryRead,
    'resources',
    (cursor) =>
      session.request(SkillsMethod.DirectoryRead, cursor === undefined ? { uri } : { uri, cursor }, options),
  );
  for await (const child of pages) children.push(child);
  return children;
}

const sha256 = async (bytes: Uint8Array): Promise<string> => {
  const hash = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('')}`;
};

/**
 * Reads one file of `skill` (`ref` relative to its folder, SKILL.md by default) and checks it before anything
 * uses it: it must be listed in the entry (checked before it is asked for), of the listed size and digest, and a
 * SKILL.md's front matter must equal the entry's field by field. Rejects with SkillVerificationError otherwise.
 */
export async function readSkillFile(
  session: ClientSession,
  skill: Skill,
  ref = 'SKILL.md',
  options?: RequestOptions,
): Promise<SkillFileContent> {
  requireSkills(session, 'resources/read');
  const root = skillRoot(skill.uri);
  if (root === undefined) throw new TypeError(`${skill.uri} is not the URI of a SKILL.md`);
  const uri = canonicalUri(new URL(ref, `${root}/`).href.replace(/#.*$/, ''))!;
  const manifest = uri === canonicalUri(skill.uri);
  let listed: SkillFile | undefined;
  if (skill.resources === 'dynamic') {
    if (!manifest && !isWithin(root, uri))
      throw new SkillVerificationError('unlisted', uri, `${uri} is not a file of ${skill.uri}`);
  } else {
    listed = skill.resources.find((file) => canonicalUri(file.uri) === uri);
    if (listed === undefined)
      throw new SkillVerificationError('unlisted', uri, `${uri} is not a file of ${skill.uri}`);
  }
  const { contents } = await session.readResource(listed?.uri ?? uri, options);
  const content = contents.find((item) => canonicalUri(item.uri) === uri);
  if (content === undefined)
    throw new SkillVerificationError('unlisted', uri, `resources/read answered no contents for ${uri}`);
  const bytes = 'text' in content ? new TextEncoder().encode(content.text) : fromBase64(content.blob);
  if (listed !== undefined) {
    if (bytes.byteLength !== listed.size) {
      throw new SkillVerificationError(
        'size',
        uri,
        `${uri} is ${bytes.byteLength} bytes; its entry lists ${listed.size}`,
      );
    }
    const digest = await sha256(bytes);
    if (digest !== listed.digest) {
      throw new SkillVerificationError(
        'digest',
        uri,
        `${uri} has digest ${digest}; its entry lists ${listed.digest}`,
      );
    }
  }
  const file: SkillFileContent = { uri, bytes, verified: listed !== undefined };
  if (content.mimeType !== undefined) file.mimeType = content.mimeType;
  if ('text' in content) file.text = content.text;
  if (!manifest) return file;
  return { ...file, ...manifestOf(skill, uri, bytes) };
}

/** A SKILL.md's text, front matter and body, once its front matter is the entry's. */
function manifestOf(
  skill: Skill,
  uri: string,
  bytes: Uint8Array,
): { text: string; frontmatter: Record<string, unknown>; body: string } {
  let text: string;
  let read: ReturnType<typeof readSkillMarkdown>;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    read = readSkillMarkdown(text);
  } catch (err) {
    const why = err instanceof FrontmatterError ? err.message : 'it is not UTF-8';
    throw new SkillVerificationError('frontmatter', uri, `the front matter of ${uri} cannot be read: ${why}`);
  }
  const differences = differencesOf(skill.frontmatter, read.frontmatter, '');
  if (differences.length > 0) {
    throw new SkillVerificationError(
      'frontmatter',
      uri,
      `the front matter of ${uri} differs from its entry: ${differences.join('; ')}`,
    );
  }
  return { text, frontmatter: read.frontmatter, body: read.body };
}

/** Field by field: objects in any key order, arrays in order, no conversion between types. */
function differencesOf(entry: unknown, file: unknown, path: string): string[] {
  const label = path || '(front matter)';
  if (Array.isArray(entry) && Array.isArray(file)) {
    if (entry.length !== file.length)
      return [`${label}: the entry has ${entry.length} items, SKILL.md ${file.length}`];
    return entry.flatMap((item, i) => differencesOf(item, file[i], `${path}[${i}]`));
  }
  if (isObject(entry) && isObject(file)) {
    const keys = [...new Set([...Object.keys(entry), ...Object.keys(file)])].sort();
    return keys.flatMap((key) => differencesOf(entry[key], file[key], path ? `${path}.${key}` : key));
  }
  return entry === file
    ? []
    : [
        `${label}: the entry has ${JSON.stringify(entry) ?? 'nothing'}, SKILL.md ${JSON.stringify(file) ?? 'nothing'}`,
      ];
}
