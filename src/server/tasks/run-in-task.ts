import type { Params } from '../../jsonrpc/types.js';
import type { Result } from '../../protocol/types.js';
import { type RerunContext, withInputServed } from '../fulfil-locally.js';
import type { InputRequired } from '../input-required.js';
import type { MethodHandler } from '../methods.js';
import type { Server } from '../server.js';
import type { TaskRun } from './task-run.js';

/**
 * Runs a request's handler in its task, in the background, and stores how it ends. `first` is what the handler
 * already returned when it asked to become a task midway (`ctx.startTask`); otherwise it runs here, after this
 * turn, so that the `CreateTaskResult` leaves first. A handler that answers `inputRequired` is asked again with
 * the answers its task got, as on a legacy session.
 */
export function runInTask(
  run: TaskRun,
  server: Server,
  handler: MethodHandler,
  params: Params,
  ctx: RerunContext,
  first?: Promise<Result | InputRequired>,
): void {
  const outcome =
    first ??
    new Promise<Result | InputRequired>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(handler(server, params, ctx));
        } catch (err) {
          reject(err);
        }
      }),
    );
  run.settle(Promise.resolve(withInputServed(server, handler, params, ctx, outcome)));
}
