import type { TaskStore } from '../tasks/task-store.js';
import type { ServerOptions } from './server-options.js';

/**
 * What `mcpwire serve ./module.js` gives a module that exports a function making its `Server`: the options
 * that make the server work as deployed. Spread them into the server's options,
 * `new Server(info, { ...deployment, instructions: '…' })`, and run tools as tasks with
 * `tasks: { store: deployment.taskStore }` when one is given.
 *
 * - `requestStateKeys`: the keys every process behind the endpoint seals 2026 `requestState` with
 *   (`MCPWIRE_REQUEST_STATE_SECRET`, or the cluster's under `--redis`); absent, one process's own.
 * - `logger`, `onerror`: where `--log-format` writes the server's events and errors; absent without it.
 * - `taskStore`: under `--redis`, the store every process shares, so that any process answers any task;
 *   absent otherwise (keep tasks in a `MemoryTaskStore`).
 */
export interface ServeDeployment extends Pick<ServerOptions, 'requestStateKeys' | 'logger' | 'onerror'> {
  readonly taskStore?: TaskStore;
}
