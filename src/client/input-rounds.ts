import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { ContextSender } from '../peer/request-context.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import { Method } from '../protocol/types.js';
import type { ClientContext, ClientSession } from './client-session.js';
import type { EraWire } from './session-era.js';

/** The capability each kind of input request needs, for the error that says what to declare. */
const NEEDS: Readonly<Record<string, string>> = {
  [Method.ElicitationCreate]: 'elicitation (the Client `elicitation` option)',
  [Method.SamplingCreateMessage]: 'sampling (the Client `sampling` option)',
  [Method.RootsList]: 'roots (the Client `roots` option)',
};

/**
 * Fulfils every input request of one `input_required` round (spec 2026-07-28, MRTR) with the Client's own
 * handlers, the same ones that answer a legacy server's requests, and resolves with the bare results by
 * key. They run at once, as the server asked for them together. A request this client cannot answer
 * rejects naming the method, the capability to declare and the request it was needed for. The requests were
 * checked where they were read (`inputRequestsProblem`).
 */
export async function fulfil(
  wire: EraWire,
  requests: InputRequests,
  forMethod: string,
  contextFor: (key: string, method: string) => ClientContext,
): Promise<InputResponses> {
  const keys = Object.keys(requests);
  const answers = await Promise.all(
    keys.map(async (key) => {
      const { method, params } = requests[key]!;
      try {
        return await wire.answer(method, params, contextFor(key, method));
      } catch (err) {
        if (err instanceof McpError && err.code === ErrorCode.MethodNotFound) {
          throw new McpError(
            ErrorCode.InvalidRequest,
            `${forMethod} needs ${method} from this client (input request "${key}"), ` +
              `which it cannot answer: declare ${NEEDS[method]}`,
          );
        }
        throw err;
      }
    }),
  );
  const responses: InputResponses = {};
  keys.forEach((key, i) => {
    responses[key] = answers[i];
  });
  return responses;
}

/** What a handler gets for one input request of a modern round: the round's signal; the key as id. */
export function roundContext(
  sender: ContextSender,
  session: ClientSession,
  key: string,
  method: string,
  signal: AbortSignal,
): ClientContext {
  return {
    session,
    requestId: key,
    method,
    signal,
    meta: undefined,
    transport: undefined,
    notify: (m, p) => sender.notify(m, p),
    request: (m, p, o) => sender.request(m, p, o),
    sendProgress: async () => {},
  };
}
