import type { MessageInfo } from '../peer/connection.js';
import type { HTTPExchange } from './exchange.js';

/**
 * `ctx.transport` for the messages of one POST: the principal the transport names, the scopes of its token, and the POST's
 * request headers, built only when a handler reads them (most never do).
 */
export class PostInfo implements MessageInfo {
  constructor(
    private readonly post: HTTPExchange,
    readonly principal: string | undefined,
  ) {}

  get scopes(): readonly string[] | undefined {
    return this.post.scopes;
  }

  get headers(): Readonly<Record<string, string>> {
    return this.post.headers;
  }
}
