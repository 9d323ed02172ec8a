import type { ClientOptions } from '../client/client.js';
import type { CreateMessageRequestParams } from '../protocol/types.js';

/** Client options for the tests against server-everything, and what they record. */
export interface EverythingClientOptions {
  readonly options: ClientOptions;
  /** What the client reported through `onerror`. */
  readonly errors: Error[];
  /** Every sampling request, in order. */
  readonly samplingRequests: CreateMessageRequestParams[];
}

/**
 * What server-everything asks of a client, answered: one root (`project`, file:///work/project), which
 * its `get-roots-list` tool lists, and a sampling handler for its `trigger-sampling-request` that records the
 * request and answers `samplingText` as model `mcpwire-test-model`. A 10 s request timeout.
 */
export function everythingClientOptions(samplingText: string): EverythingClientOptions {
  const errors: Error[] = [];
  const samplingRequests: CreateMessageRequestParams[] = [];
  const options: ClientOptions = {
    requestTimeoutMs: 10_000,
    onerror: (err) => errors.push(err),
    roots: [{ uri: 'file:///work/project', name: 'project' }],
    sampling: (params) => {
      samplingRequests.push(params);
      return {
        role: 'assistant',
        content: { type: 'text', text: samplingText },
        model: 'mcpwire-test-model',
        stopReason: 'endTurn',
      };
    },
  };
  return { options, errors, samplingRequests };
}
