import { parseDocument } from 'yaml';
import type { SkillFrontmatter } from './skill-types.js';

/** A `SKILL.md` that cannot be read: the message says where and why. */
export class FrontmatterError extends Error {
  override name = 'FrontmatterError';
}

/** A `SKILL.md` read: its front matter as JSON, and the markdown after it. */
export interface SkillMarkdown {
  frontmatter: Record<string, unknown>;
  body: string;
}

const CLOSING_LINE = /^---[\t ]*$/m;

/**
 * Reads a `SKILL.md`: a first line `---`, YAML (1.2, core schema: `yes` stays a string, `0x10` is 16) up to the
 * next `---` line, then the body. The YAML must be a mapping whose values JSON can hold, with no key twice and
 * no anchors or aliases (hosts read a subset of YAML, and an alias would be read differently by them).
 */
export function readSkillMarkdown(markdown: string): SkillMarkdown {
  let text = markdown.replaceAll('\r\n', '\n');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.startsWith('---\n')) throw new FrontmatterError('SKILL.md must begin with a "---" line');
  const rest = text.slice(4);
  const close = CLOSING_LINE.exec(rest);
  if (close === null) throw new FrontmatterError('SKILL.md front matter has no closing "---" line');
  let body = rest.slice(close.index + close[0].length);
  if (body.startsWith('\n')) body = body.slice(1);
  return { frontmatter: parseFrontmatter(rest.slice(0, close.index)), body };
}

function parseFrontmatter(yaml: string): Record<string, unknown> {
  const doc = parseDocument(yaml, { schema: 'core', uniqueKeys: true, merge: false, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    // The YAML starts on the file's second line.
    const line = yaml.slice(0, problem.pos[0]).split('\n').length + 1;
    throw new FrontmatterError(`SKILL.md line ${line}: ${problem.message}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    throw new FrontmatterError(`front matter: ${(err as Error).message} (anchors and aliases are not read)`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new FrontmatterError('front matter must be a mapping of keys to values');
  }
  const bad = notJson(value, '');
  if (bad !== undefined) throw new FrontmatterError(`front matter: ${bad}`);
  return value as Record<string, unknown>;
}

/** Where a parsed value holds something JSON cannot (an infinite number, a date object); undefined if nowhere. */
function notJson(value: unknown, path: string): string | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path || 'a value'} is not a finite number; quote it`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const bad = notJson(item, `${path}[${i}]`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return 'the key "__proto__" is not read by hosts';
      const bad = notJson(item, path === '' ? key : `${path}.${key}`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  return `${path || 'a value'} is not a JSON value`;
}

/** The front matter as an entry carries it, once `name` and `description` are known to be strings. */
export function asSkillFrontmatter(frontmatter: Record<string, unknown>): SkillFrontmatter | undefined {
  return typeof frontmatter.name === 'string' && typeof frontmatter.description === 'string'
    ? (frontmatter as SkillFrontmatter)
    : undefined;
}
