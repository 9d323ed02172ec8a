import { ConnectionClosedError } from '../../peer/errors.js';
import type { Client, ClientConnectOptions } from '../client.js';
import type { ClientSession } from '../client-session.js';
import type { EraVerdict } from '../session-era.js';
import { type StdioClientOptions, spawnStdio } from '../stdio/stdio-client-connection.js';
import { VerdictCache } from './verdict-cache.js';

/** Which era each server command spoke when this process last started it, by command line. */
const eraVerdicts = new VerdictCache();

/**
 * Spawns the server `command` and connects `client` to it over stdio, negotiating the era as
 * `Client.connect` does (`server/discover` first, then `initialize`; see the client's `probeTimeoutMs`).
 * Some legacy servers exit on a request they do not know before `initialize`: when the child ends during
 * the probe, it is started once more and spoken to with `initialize` alone. The verdict is kept per
 * command line for the life of the process, so the next start skips the probe (one that fails is dropped
 * and the server started and probed afresh); `options.prior` supplies one.
 */
export async function connectStdio(
  client: Client,
  command: StdioClientOptions,
  options: ClientConnectOptions = {},
): Promise<ClientSession> {
  const key = JSON.stringify([command.command, command.args ?? [], command.cwd ?? '']);
  const remembered = options.prior === undefined ? eraVerdicts.get(key) : undefined;
  if (remembered !== undefined) {
    try {
      return await client.connect(spawnStdio(command), { ...options, prior: remembered });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      // Proved wrong (the command now starts another server): probe afresh.
      eraVerdicts.delete(key);
    }
  }
  const prior = options.prior;
  let session: ClientSession;
  try {
    session = await client.connect(spawnStdio(command), { ...options, prior });
  } catch (err) {
    const probed = prior === undefined && client.era === 'auto' && client.initializeParams !== undefined;
    if (!probed || !(err instanceof ConnectionClosedError) || options.signal?.aborted) throw err;
    const legacy: EraVerdict = { era: 'legacy', at: Date.now() };
    try {
      session = await client.connect(spawnStdio(command), { ...options, prior: legacy });
    } catch (again) {
      throw new AggregateError(
        [err, again],
        `${command.command} ended when sent server/discover (${err.message}), and started again it failed ` +
          `initialize: ${(again as Error).message}`,
      );
    }
  }
  eraVerdicts.set(key, session.verdict);
  return session;
}
