import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthClient } from '../client/oauth/oauth-client.js';
import { OAuthError } from '../client/oauth/oauth-error.js';
import type { OAuthTokenFile } from './oauth-token-file.js';

/** How long `mcpwire call` waits for the person to finish signing in. */
const SIGN_IN_TIMEOUT_MS = 5 * 60 * 1000;

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>mcpwire</title><p>${text}</p>`;

/** Sign-in for `mcpwire call`: the OAuthClient its HTTP transports use, and the end of its redirect listener. */
export interface CliSignIn {
  readonly oauth: OAuthClient;
  close(): Promise<void>;
}

/**
 * An OAuthClient for `mcpwire call`, for servers that want an OAuth token (it does nothing for the others):
 * the person signs in in their browser at the URL printed by `say`, and the authorization server sends the
 * browser back to a listener on 127.0.0.1 (a loopback redirect URI, RFC 8252 §7.3) bound here on a free
 * port. `interactive` false (no terminal) refuses to sign in, with an error that says what to do instead.
 * With `saved`, the registration and tokens are kept there between runs (the OAuthClient refreshes the
 * tokens, and each refresh is saved too), and the listener takes the port of the saved redirect URI when it
 * is free, so that the registration made with it still holds; without, each run signs in again.
 */
export async function cliSignIn(
  clientVersion: string,
  interactive: boolean,
  say: (text: string) => void,
  saved?: OAuthTokenFile,
): Promise<CliSignIn> {
  let waiting: ((url: URL) => void) | undefined;
  const listener: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || waiting === undefined) {
      res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end(PAGE('Nothing is waiting here.'));
      return;
    }
    // The same page whatever the query says: an `error` is not to be shown before the OAuthClient has
    // checked `state` and `iss` (RFC 9207), and the terminal says how the sign-in ended.
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        PAGE(
          'mcpwire call has the answer: you can close this tab (the terminal says whether you are signed in).',
        ),
      );
    // The query is what counts (code and state, or error): the OAuthClient checks it.
    waiting(url);
  });
  const port = savedPort(await saved?.redirectUri());
  // A port taken since the last run: any other will do, and the client registers again with it.
  await listen(listener, port).catch((err) => (port === 0 ? Promise.reject(err) : listen(listener, 0)));
  const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
  const oauth = new OAuthClient({
    redirectUri,
    store: saved?.store(redirectUri),
    clientName: `mcpwire call ${clientVersion}`,
    authorize: (url) => {
      if (!interactive) {
        return Promise.reject(
          new OAuthError(
            'The server wants you to sign in (OAuth), which mcpwire call does only on a terminal; ' +
              (saved === undefined
                ? 'run it on one, '
                : 'run it once on one (the sign-in is kept for the next runs), ') +
              'or give a token with --header "Authorization: Bearer …"',
          ),
        );
      }
      say(
        `The server wants you to sign in at ${url.host}. Open this URL in a browser:\n  ${url.href}\n` +
          'Waiting for the browser to come back (Ctrl-C gives up)…\n',
      );
      return new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          reject(new OAuthError(`Nobody signed in within ${SIGN_IN_TIMEOUT_MS / 60_000} minutes`));
        }, SIGN_IN_TIMEOUT_MS);
        timer.unref();
        waiting = (back) => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(back);
        };
      });
    },
  });
  return {
    oauth,
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The port of a redirect URI this listener made, else 0 (any free one). */
function savedPort(redirectUri: string | undefined): number {
  if (redirectUri === undefined || !URL.canParse(redirectUri)) return 0;
  const url = new URL(redirectUri);
  return url.hostname === '127.0.0.1' && url.pathname === '/callback' ? Number(url.port) : 0;
}
