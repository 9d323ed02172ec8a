import { TASKS_EXTENSION } from '../protocol/tasks.js';
import type { ServerCapabilities } from '../protocol/types.js';
import type { Server } from './server.js';

/**
 * What a server announces at initialize, from what is registered: `tools`, `resources` (with `subscribe`),
 * `prompts` (each with `listChanged`) once one of that kind is; `completions` once a completer is; `logging`
 * unless disabled; `tasks` when it runs tasks; `extensions` announced; then the options' own `capabilities` on top.
 */
export function deriveCapabilities(server: Server): ServerCapabilities {
  const capabilities: ServerCapabilities = {};
  if (server.logging) capabilities.logging = {};
  if (hasCompleters(server)) capabilities.completions = {};
  if (server.promptEntries.size > 0) capabilities.prompts = { listChanged: true };
  if (server.resourceEntries.size > 0 || server.templateEntries.size > 0) {
    capabilities.resources = { subscribe: true, listChanged: true };
  }
  if (server.toolEntries.size > 0) capabilities.tools = { listChanged: true };
  // 2025-11-25 (tasks, capabilities): what runs as a task, and that tasks/list and tasks/cancel are served.
  if (server.tasks !== undefined) {
    capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }
  if (server.extensions.size > 0) capabilities.extensions = Object.fromEntries(server.extensions);
  return Object.freeze(Object.assign(capabilities, server.options.capabilities));
}

/**
 * What initialize announces to a caller the transport did not authenticate: no `tasks.list`. Every such caller
 * would be the same principal, so a list would show each the others' tasks (2025-11-25, tasks, security: a list
 * holds only the tasks of the requestor's authorization context). Their tasks stay theirs by id alone.
 */
export function anonymousCapabilities(capabilities: ServerCapabilities): ServerCapabilities {
  const tasks = capabilities.tasks as Record<string, unknown> | undefined;
  if (tasks?.list === undefined) return capabilities;
  const { list: _list, ...rest } = tasks;
  return Object.freeze({ ...capabilities, tasks: rest });
}

function hasCompleters(server: Server): boolean {
  for (const prompt of server.promptEntries.values()) if (prompt.completers !== undefined) return true;
  for (const template of server.templateEntries.values()) if (template.completers !== undefined) return true;
  return false;
}

/**
 * The same for `server/discover` (2026-07-28): tasks are the `io.modelcontextprotocol/tasks` extension there
 * (SEP-2663), and the 2025 `tasks` capability goes, unless the author declared one and runs no tasks.
 */
export function modernCapabilities(legacy: ServerCapabilities, runsTasks: boolean): ServerCapabilities {
  if (!runsTasks) return legacy;
  const { tasks: _tasks, ...modern } = legacy;
  modern.extensions = {
    ...(legacy.extensions as Record<string, unknown> | undefined),
    [TASKS_EXTENSION]: {},
  };
  return Object.freeze(modern);
}

/** What a server announces, in each form, derived on the first read after a change (never per session). */
export class AnnouncedCapabilities {
  private legacyCache: ServerCapabilities | undefined;
  private anonymousCache: ServerCapabilities | undefined;
  private modernCache: ServerCapabilities | undefined;

  constructor(private readonly server: Server) {}

  /** What initialize announces. */
  get legacy(): ServerCapabilities {
    this.legacyCache ??= deriveCapabilities(this.server);
    return this.legacyCache;
  }

  /** What initialize announces to a caller without a principal. */
  get anonymous(): ServerCapabilities {
    this.anonymousCache ??= anonymousCapabilities(this.legacy);
    return this.anonymousCache;
  }

  /** What `server/discover` announces. */
  get modern(): ServerCapabilities {
    this.modernCache ??= modernCapabilities(this.legacy, this.server.tasks !== undefined);
    return this.modernCache;
  }

  /** What is registered changed: each form is derived again when next read. */
  changed(): void {
    this.legacyCache = undefined;
    this.anonymousCache = undefined;
    this.modernCache = undefined;
  }
}
