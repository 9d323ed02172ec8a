// The rules a skill entry keeps (SEP-2640 and the Agent Skills format), checked by the server before it
// publishes a skill and by the client before it trusts one.

import { isObject } from '../../jsonrpc/parse.js';

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** `metadata` keys under this prefix belong to the protocol, not to a skill's author. */
const RESERVED_METADATA = 'io.modelcontextprotocol/';
const MANIFEST = '/SKILL.md';

/** The WHATWG spelling of `uri` (`skill://a/./b` → `skill://a/b`), or undefined when it does not parse. */
export function canonicalUri(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

/** The folder of the skill whose `SKILL.md` is at `uri` (no trailing slash); undefined for any other URI. */
export function skillRoot(uri: string): string | undefined {
  const href = canonicalUri(uri);
  if (href === undefined || !href.endsWith(MANIFEST) || /[?#]/.test(href)) return undefined;
  const root = href.slice(0, -MANIFEST.length);
  return root.endsWith('/') || root.endsWith(':') ? undefined : root;
}

/** The skill's name as its folder spells it: the last path segment, or the authority when the path is empty. */
export function folderName(root: string): string {
  const url = new URL(root);
  const path = url.pathname;
  const segment = path === '' || path === '/' ? url.host : path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether `uri` names something strictly inside `root`, with no segment that is empty, `.` or `..` once decoded. */
export function isWithin(root: string, uri: string): boolean {
  const href = canonicalUri(uri);
  if (href === undefined || !href.startsWith(`${root}/`) || /[?#]/.test(href)) return false;
  return href
    .slice(root.length + 1)
    .split('/')
    .every((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return false;
      }
      return decoded !== '' && decoded !== '.' && decoded !== '..' && !/[/\\\0]/.test(decoded);
    });
}

const characters = (text: string): number => [...text].length;

/** The problems of a front matter in a skill folder named `folder`, one line each. */
export function frontmatterProblems(frontmatter: Record<string, unknown>, folder: string): string[] {
  const problems: string[] = [];
  const { name, description, compatibility, metadata } = frontmatter;
  if (typeof name !== 'string' || name.length > 64 || !NAME.test(name)) {
    problems.push(`name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single hyphens`);
  } else if (name !== folder) {
    problems.push(`name "${name}" must be the name of the skill's folder, "${folder}"`);
  }
  if (typeof description !== 'string' || description === '' || characters(description) > 1024) {
    problems.push('description must be a string of 1-1024 characters');
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > 500)
  ) {
    problems.push('compatibility must be a string of 1-500 characters');
  }
  if (metadata !== undefined) {
    if (!isObject(metadata) || !Object.values(metadata).every((v) => typeof v === 'string')) {
      problems.push('metadata must map strings to strings');
    } else {
      const reserved = Object.keys(metadata).filter((key) => key.startsWith(RESERVED_METADATA));
      if (reserved.length > 0) {
        problems.push(`metadata keys under "${RESERVED_METADATA}" are reserved: ${reserved.join(', ')}`);
      }
    }
  }
  return problems;
}

/** What is wrong with a skill entry as received or about to be sent, one line each; empty when nothing. */
export function skillProblems(skill: unknown): string[] {
  if (!isObject(skill)) return ['a skill entry must be an object'];
  const { uri, frontmatter, resources } = skill;
  if (typeof uri !== 'string') return ['uri must be a string'];
  const root = skillRoot(uri);
  if (root === undefined) return [`uri "${uri}" must end in /SKILL.md, inside a named folder`];
  if (!isObject(frontmatter)) return ['frontmatter must be an object'];
  const problems = frontmatterProblems(frontmatter, folderName(root));
  if (resources === 'dynamic') return problems;
  if (!Array.isArray(resources)) return [...problems, 'resources must be a list of files or "dynamic"'];
  const seen = new Set<string>();
  for (const file of resources as unknown[]) {
    if (!isObject(file) || typeof file.uri !== 'string') {
      problems.push('each resource must be an object with a string uri');
      continue;
    }
    const href = canonicalUri(file.uri);
    if (href === undefined || !(href === canonicalUri(uri) || isWithin(root, file.uri))) {
      problems.push(`resource "${file.uri}" is not inside the skill's folder ${root}`);
    } else if (seen.has(href)) {
      problems.push(`resource "${file.uri}" is listed more than once`);
    }
    if (href !== undefined) seen.add(href);
    if (typeof file.digest !== 'string' || !DIGEST.test(file.digest)) {
      problems.push(`resource "${file.uri}": digest must be "sha256:" and 64 lowercase hex digits`);
    }
    if (!Number.isSafeInteger(file.size) || (file.size as number) < 0) {
      problems.push(`resource "${file.uri}": size must be a whole number of bytes`);
    }
  }
  if (!seen.has(canonicalUri(uri)!)) problems.push(`resources must include the skill's own ${uri}`);
  return problems;
}
