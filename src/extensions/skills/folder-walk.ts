import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** One thing found under the skills folder: its path from the folder (`/`-separated) and what it is. */
export interface FolderEntry {
  path: string;
  kind: 'file' | 'directory' | 'other';
}

/** How far a walk goes: a folder deeper or fuller than this is a mistake (a mount, a copy of a home). */
const MAX_DEPTH = 16;
const MAX_ENTRIES = 20_000;

/**
 * Every entry under `folder`, parents before children, names in code-point order; names that begin with "."
 * are left out. Symbolic links are reported as `other`, never followed. Throws when the walk passes its bounds.
 */
export async function walkFolder(folder: string): Promise<FolderEntry[]> {
  const found: FolderEntry[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) throw new Error(`${dir || '.'} is nested deeper than ${MAX_DEPTH} folders`);
    const entries = await readdir(join(folder, dir), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      const kind = entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : 'other';
      found.push({ path, kind });
      if (found.length > MAX_ENTRIES) throw new Error(`the folder holds more than ${MAX_ENTRIES} entries`);
      if (kind === 'directory') await visit(path, depth + 1);
    }
  };
  await visit('', 0);
  return found;
}

/**
 * The bytes of the regular file at `path` under `folder`. Refuses a symbolic link as the file itself
 * (`O_NOFOLLOW`) and anything but a regular file; the caller checks the folders on the way (see `readSkillFile`).
 */
export async function readRegularFile(folder: string, path: string): Promise<Buffer> {
  const handle = await open(join(folder, ...path.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
