import { givesAuthorization } from './header-args.js';
import { UsageError } from './usage-error.js';

/** `mcpwire call --client-id`: a machine client's credentials for the client credentials grant. */
export interface MachineClient {
  clientId: string;
  clientSecret: string;
}

/** `--client-id ID`: a machine client's credentials, its secret from the environment (never the command line). */
export function machineClient(
  clientId: string | undefined,
  target: { kind: string },
  headers: Record<string, string>,
): MachineClient | undefined {
  if (clientId === undefined) return undefined;
  if (target.kind !== 'url')
    throw new UsageError('--client-id gets OAuth tokens for a server at a URL, not over stdio');
  if (givesAuthorization(headers)) {
    throw new UsageError(
      '--client-id gets a token, and --header "Authorization: …" gives one: give one of them',
    );
  }
  const clientSecret = process.env.MCPWIRE_CLIENT_SECRET;
  if (!clientSecret) {
    throw new UsageError(
      '--client-id gets tokens with the client credentials grant: set MCPWIRE_CLIENT_SECRET to its secret ' +
        '(kept out of the command line, where other users can read it)',
    );
  }
  return { clientId, clientSecret };
}
