// The Skills extension (SEP-2640): the names and shapes a server puts on the wire for its agent skills.

/** The extension's identifier, in the server's `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The methods the extension adds. */
export const SkillsMethod = {
  /** Every skill the server serves, a page at a time. */
  List: 'skills/list',
  /** One skill's entry by the URI of its `SKILL.md`. */
  Get: 'skills/get',
  /** The direct children of a directory resource (announced by `directoryRead: true`). */
  DirectoryRead: 'resources/directory/read',
} as const;

/** The MIME type of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** What a host must accept of one skill, and so the most a server should publish. */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** The extension's settings in `capabilities.extensions`. */
export interface SkillsCapability {
  /** Whether the server answers `resources/directory/read`. */
  directoryRead?: boolean;
}

/** A `SKILL.md` front matter: `name` and `description` at least, every other field kept as written. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** One file of a skill, with what a host checks it against when it reads it. */
export interface SkillFile {
  uri: string;
  /** `sha256:` and the 64 lowercase hex digits of the SHA-256 of the file's bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/** A skill as `skills/list` and `skills/get` carry it. */
export interface Skill {
  /** The URI of its `SKILL.md`; the skill's folder is everything before `/SKILL.md`. */
  uri: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill (its `SKILL.md` included), or `"dynamic"` when the server cannot list them. */
  resources: SkillFile[] | 'dynamic';
  _meta?: Record<string, unknown>;
}

/** One child of a directory, as `resources/directory/read` answers it. */
export interface DirectoryEntry {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}
