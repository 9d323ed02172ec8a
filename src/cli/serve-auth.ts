import { BearerTokens } from '../http/bearer-tokens.js';
import { UsageError } from './usage-error.js';

/** Whose access tokens `mcpwire serve --oauth-issuer …` takes, and how it checks them. */
export interface ServeOAuth {
  issuer: string;
  /** RFC 7662 introspection with this server's credentials, or JWT access tokens checked against the issuer's keys. */
  check: { introspection: string; clientId: string; clientSecret: string } | { jwks: string };
  /** The server's canonical URL; default: `http://host:port/mcp` as bound. */
  resource?: string;
  requiredScopes: string[];
  /** DPoP-bound tokens (RFC 9449): taken beside Bearer ones, or only they. Default: Bearer only. */
  dpop: 'accept' | 'require' | undefined;
}

/** Who may call `mcpwire serve`: the flags that say so, as parsed. */
interface AuthFlags {
  'oauth-issuer'?: string;
  'oauth-introspection'?: string;
  'oauth-jwks'?: string;
  'oauth-scope': string[];
  'oauth-resource'?: string;
  'oauth-dpop'?: string;
  'token-env'?: string;
}

/**
 * Who may call `mcpwire serve`: OAuth access tokens of one authorization server (`--oauth-*`), tokens given out by
 * hand (`--token-env NAME`), or anyone (neither); UsageError when the flags are incomplete or both are given.
 */
export function parseServeAuth(
  values: AuthFlags,
  stdio: boolean | undefined,
): { oauth?: ServeOAuth; tokens?: BearerTokens } {
  const oauth = parseServeOAuth(values, stdio);
  const variable = values['token-env'];
  if (variable === undefined) return { oauth };
  if (stdio) throw new UsageError('--token-env protects HTTP endpoints; --stdio has none');
  if (oauth !== undefined) {
    throw new UsageError(
      '--token-env and --oauth-issuer each say who may call: give one (tokens handed out, or OAuth access tokens)',
    );
  }
  const text = process.env[variable];
  if (!text) {
    throw new UsageError(
      `--token-env ${variable}: the environment variable ${variable} is not set; put the tokens clients may send ` +
        'in it, separated by commas (`openssl rand -hex 32` makes one)',
    );
  }
  try {
    return { tokens: new BearerTokens(text.split(',').map((token) => token.trim())) };
  } catch (err) {
    throw new UsageError(`--token-env ${variable}: ${(err as Error).message.replace('BearerTokens: ', '')}`);
  }
}

/** The OAuth options of `mcpwire serve`, or undefined when none are given; UsageError when they are incomplete. */
function parseServeOAuth(values: AuthFlags, stdio: boolean | undefined): ServeOAuth | undefined {
  const issuer = values['oauth-issuer'];
  const introspection = values['oauth-introspection'];
  const jwks = values['oauth-jwks'];
  if (issuer === undefined && introspection === undefined && jwks === undefined) {
    if (
      values['oauth-scope'].length > 0 ||
      values['oauth-resource'] !== undefined ||
      values['oauth-dpop'] !== undefined
    ) {
      throw new UsageError(
        '--oauth-scope, --oauth-resource and --oauth-dpop need --oauth-issuer, with --oauth-introspection or --oauth-jwks',
      );
    }
    return undefined;
  }
  if (stdio) throw new UsageError('--oauth-issuer protects HTTP endpoints; --stdio has none');
  if (issuer === undefined || (introspection === undefined) === (jwks === undefined)) {
    throw new UsageError(
      '--oauth-issuer goes with one of --oauth-introspection (ask the authorization server about each token) and ' +
        '--oauth-jwks (check JWT access tokens against its keys): whose tokens, and how to check them',
    );
  }
  for (const [flag, url] of [
    ['--oauth-issuer', issuer],
    ['--oauth-introspection', introspection],
    ['--oauth-jwks', jwks],
    ['--oauth-resource', values['oauth-resource']],
  ] as const) {
    if (url !== undefined && !URL.canParse(url)) throw new UsageError(`${flag} takes a URL, not "${url}"`);
  }
  const dpop = values['oauth-dpop'];
  if (dpop !== undefined && dpop !== 'accept' && dpop !== 'require') {
    throw new UsageError(
      `--oauth-dpop is accept (DPoP-bound tokens beside Bearer ones) or require (only them), not "${dpop}"`,
    );
  }
  const common = {
    issuer,
    resource: values['oauth-resource'],
    requiredScopes: values['oauth-scope'],
    dpop: dpop as ServeOAuth['dpop'],
  };
  if (jwks !== undefined) return { ...common, check: { jwks } };
  const clientId = process.env.MCPWIRE_INTROSPECTION_CLIENT_ID;
  const clientSecret = process.env.MCPWIRE_INTROSPECTION_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    throw new UsageError(
      "Introspection needs this server's credentials at the authorization server: set MCPWIRE_INTROSPECTION_CLIENT_ID " +
        'and MCPWIRE_INTROSPECTION_CLIENT_SECRET (kept out of the command line, where other users can read them)',
    );
  }
  return { ...common, check: { introspection: introspection!, clientId, clientSecret } };
}
