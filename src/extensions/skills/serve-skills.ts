import { type FSWatcher, watch } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/types.js';
import type { ReadResourceResult } from '../../protocol/types.js';
import type { ResourceTemplateHandle, Server } from '../../server/server.js';
import { type Catalog, type CatalogFile, digestOf, loadCatalog, type SkillWarning } from './catalog.js';
import { readRegularFile } from './folder-walk.js';
import { canonicalUri } from './skill-rules.js';
import { SKILLS_EXTENSION, type Skill, SkillsMethod } from './skill-types.js';
import { uriPage } from './uri-pages.js';

/** The skills a server serves from a folder, read again on `reload` or, once `watch` is called, on a change. */
export interface ServedSkills {
  /** The skills served now, in URI order. */
  readonly skills: readonly Skill[];
  /**
   * Reads the folder again and serves what it holds; clients hear `notifications/resources/list_changed` when
   * a skill came, went or changed. Reloads run one at a time; one asked for during another runs after it.
   */
  reload(): Promise<void>;
  /** Reloads after each change in the folder, a change coming within `settleMs` of another joining it. */
  watch(settleMs?: number): void;
  /** Stops watching. */
  close(): void;
}

const WATCH_SETTLE_MS = 250;

const uriParam = (params: Params): string => {
  if (typeof params.uri !== 'string')
    throw new McpError(ErrorCode.InvalidParams, 'params.uri must be a string');
  return params.uri;
};

/**
 * Serves the skills in `folder` (SEP-2640) on `server`, in both eras: `skills/list`, `skills/get`,
 * `resources/directory/read`, and each skill's files as `skill://` resources, the extension announced with
 * `directoryRead`. A file is served only if the catalog holds it, is read without following a symbolic link
 * anywhere under the folder, and only while its bytes are those its entry lists. What is skipped goes to
 * `onwarning` (by default a process warning). Rejects when the folder cannot be read.
 */
export async function serveSkills(
  server: Server,
  folder: string,
  onwarning: (warning: SkillWarning) => void = (w) =>
    process.emitWarning(`${w.path}: ${w.message}`, 'SkillWarning'),
): Promise<ServedSkills> {
  const root = await realpath(resolve(folder));
  let catalog: Catalog = await loadCatalog(root, onwarning);
  let template: ResourceTemplateHandle | undefined;
  let queue: Promise<void> = Promise.resolve();
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;

  const readFile = async (uri: string, file: CatalogFile): Promise<ReadResourceResult> => {
    // realpath is the path itself only when no folder on the way (or the file) is a symbolic link.
    const path = join(root, ...file.path.split('/'));
    const bytes =
      (await realpath(path).catch(() => undefined)) === path
        ? await readRegularFile(root, file.path)
        : undefined;
    if (bytes === undefined || bytes.byteLength !== file.size || digestOf(bytes) !== file.digest) {
      served.reload().catch(server.report);
      throw new McpError(
        ErrorCode.InternalError,
        `${uri} changed since the skills were listed: list them again`,
      );
    }
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let content: ReadResourceResult['contents'][number];
    try {
      content = { uri, mimeType: file.mimeType, text: text.decode(bytes) };
    } catch {
      content = { uri, mimeType: file.mimeType, blob: bytes.toString('base64') };
    }
    return { contents: [content] };
  };

  const read = (uri: string): Promise<ReadResourceResult> => {
    const href = canonicalUri(uri);
    const file = href === undefined ? undefined : catalog.files.get(href);
    if (file !== undefined) return readFile(uri, file);
    const hint =
      href !== undefined && catalog.directories.has(href)
        ? ': it is a folder, read it with resources/directory/read'
        : '';
    return Promise.reject(
      new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}${hint}`, { uri }),
    );
  };

  const reloadNow = async (): Promise<void> => {
    const next = await loadCatalog(root, onwarning);
    const before = JSON.stringify([...catalog.skills.values()]);
    catalog = next;
    // Updating the template's list is what tells clients: one resources/list_changed per tick.
    if (JSON.stringify([...next.skills.values()]) !== before)
      template?.update({ list: () => catalog.manifests.slice() });
  };

  const served: ServedSkills = {
    get skills() {
      return [...catalog.skills.values()];
    },
    reload() {
      const run = queue.then(reloadNow);
      queue = run.catch(() => {});
      return run;
    },
    watch(settleMs = WATCH_SETTLE_MS) {
      if (watcher !== undefined) return;
      watcher = watch(root, { recursive: true, persistent: false }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => served.reload().catch(server.report), settleMs);
      });
      watcher.on('error', server.report);
    },
    close() {
      clearTimeout(timer);
      watcher?.close();
      watcher = undefined;
    },
  };

  server.addMethod(SkillsMethod.List, {
    cacheable: true,
    answer: (params) => {
      const page = uriPage([...catalog.skills.values()], params.cursor, server.pageSize);
      return page.nextCursor === undefined
        ? { skills: page.items }
        : { skills: page.items, nextCursor: page.nextCursor };
    },
  });
  server.addMethod(SkillsMethod.Get, {
    cacheable: true,
    answer: (params) => {
      const uri = uriParam(params);
      const skill = catalog.skills.get(canonicalUri(uri) ?? '');
      if (skill === undefined)
        throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri}`, { uri });
      return { skill };
    },
  });
  server.addMethod(SkillsMethod.DirectoryRead, {
    cacheable: true,
    answer: (params) => {
      const uri = uriParam(params);
      const children = catalog.directories.get(canonicalUri(uri)?.replace(/\/$/, '') ?? '');
      if (children === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `${uri} is not a folder of a served skill`, { uri });
      }
      const page = uriPage(children, params.cursor, server.pageSize);
      return page.nextCursor === undefined
        ? { resources: page.items }
        : { resources: page.items, nextCursor: page.nextCursor };
    },
  });
  template = server.resourceTemplate(
    {
      uriTemplate: 'skill://{+path}',
      name: 'skills',
      description: 'The files of the skills this server serves',
    },
    { read, list: () => catalog.manifests.slice() },
  );
  server.announceExtension(SKILLS_EXTENSION, { directoryRead: true });
  return served;
}
