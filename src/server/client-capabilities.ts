import type { Params } from '../jsonrpc/types.js';
import { type ClientCapabilities, Method } from '../protocol/types.js';

/**
 * Why the server may not send `method` with `params` to a client that declared `capabilities`,
 * or undefined when it may. The spec forbids requests the client did not declare support for:
 * roots/list needs `roots`; sampling needs `sampling`, and `sampling.tools` for `tools` or
 * `toolChoice`, and `sampling.context` for `includeContext` other than "none"; elicitation needs
 * `elicitation`, with `url` for URL mode and `form` (or neither mode named) for form mode.
 */
export function clientCallProblem(
  capabilities: ClientCapabilities | undefined,
  method: string,
  params: Params | undefined,
): string | undefined {
  if (capabilities === undefined) {
    return `Cannot send ${method}: the client has not initialized the session, so its capabilities are unknown`;
  }
  switch (method) {
    case Method.RootsList:
      return capabilities.roots ? undefined : 'The client does not support roots (no "roots" capability)';
    case Method.SamplingCreateMessage: {
      const sampling = capabilities.sampling;
      if (!sampling) return 'The client does not support sampling (no "sampling" capability)';
      if ((params?.tools !== undefined || params?.toolChoice !== undefined) && !sampling.tools) {
        return 'The client does not support tool use in sampling (no "sampling.tools" capability): omit "tools" and "toolChoice"';
      }
      const include = params?.includeContext;
      if (include !== undefined && include !== 'none' && !sampling.context) {
        return `The client does not support context inclusion in sampling (no "sampling.context" capability): omit "includeContext" or use "none"`;
      }
      return undefined;
    }
    case Method.ElicitationCreate: {
      const elicitation = capabilities.elicitation;
      if (!elicitation) return 'The client does not support elicitation (no "elicitation" capability)';
      if (params?.mode === 'url') {
        return elicitation.url
          ? undefined
          : 'The client does not support URL-mode elicitation (no "elicitation.url" capability)';
      }
      // A bare `elicitation: {}` means form mode (spec: elicitation, capabilities).
      return elicitation.form || !elicitation.url
        ? undefined
        : 'The client does not support form-mode elicitation (its "elicitation" capability names only "url")';
    }
    default:
      return undefined;
  }
}

/**
 * The capabilities a client must declare for the server to send `method` with `params`, as a
 * ClientCapabilities object (the `data.requiredCapabilities` of a -32021 error).
 */
export function requiredCapabilities(method: string, params: Params | undefined): ClientCapabilities {
  switch (method) {
    case Method.RootsList:
      return { roots: {} };
    case Method.SamplingCreateMessage: {
      const sampling: Record<string, object> = {};
      if (params?.tools !== undefined || params?.toolChoice !== undefined) sampling.tools = {};
      if (params?.includeContext !== undefined && params.includeContext !== 'none') sampling.context = {};
      return { sampling };
    }
    default:
      return { elicitation: params?.mode === 'url' ? { url: {} } : { form: {} } };
  }
}
