import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { type LoopbackServer, listenLoopback, readBody } from './http-loopback.js';

/**
 * An enterprise identity provider on loopback (OpenID Connect metadata and a token endpoint) that trades a
 * person's ID token for an identity assertion authorization grant (ID-JAG, token exchange), for enterprise-managed
 * authorization (SEP-990).
 */
export interface TestIdentityProvider extends LoopbackServer {
  readonly issuer: string;
  /** The public key its grants are signed with, for an authorization server that trusts it. */
  readonly publicKey: JWK;
  /** The form of each token exchange request, with its Authorization header as `authorization`. */
  readonly exchanges: URLSearchParams[];
  /** An ID token it issued to `subject` at the client `app`, expiring in `expires` (a jose time span). */
  idToken(subject: string, expires?: string): Promise<string>;
  /** The OAuth error its token endpoint answers (HTTP 400) instead of a grant, when set: its policy says no. */
  refusal: { error: string; error_description?: string } | undefined;
  /** The `issued_token_type` it answers. Default the ID-JAG's. */
  issuedTokenType: string;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
/** The client the person signed in at, `app` / `app-secret`, whose ID tokens it trades. */
const APP = `Basic ${Buffer.from('app:app-secret').toString('base64')}`;
/** The client `app` is registered as at every authorization server: what its grants name. */
const CLIENT_AT_SERVERS = 'robot';

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/**
 * Starts a test identity provider. Its token endpoint takes a token exchange from `app` (HTTP Basic) with an ID
 * token it issued to `app`, for an ID-JAG for the `audience` (an authorization server's issuer), `resource` and
 * `scope` asked, naming the client `robot`, good for five minutes; anything else gets the OAuth error it is.
 */
export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const exchanges: URLSearchParams[] = [];
  let issuer = '';
  const sign = (claims: Record<string, unknown>, audience: string, expires: string, typ?: string) =>
    new SignJWT(claims)
      .setProtectedHeader(typ === undefined ? { alg: 'ES256' } : { alg: 'ES256', typ })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(expires)
      .setJti(crypto.randomUUID())
      .sign(privateKey);

  const exchange = async (form: URLSearchParams): Promise<[number, Record<string, unknown>]> => {
    if (form.get('authorization') !== APP) return [401, { error: 'invalid_client' }];
    if (form.get('grant_type') !== TOKEN_EXCHANGE) return [400, { error: 'unsupported_grant_type' }];
    const audience = form.get('audience');
    if (
      form.get('requested_token_type') !== ID_JAG ||
      form.get('subject_token_type') !== 'urn:ietf:params:oauth:token-type:id_token' ||
      audience === null
    ) {
      return [400, { error: 'invalid_request' }];
    }
    let subject: string | undefined;
    try {
      ({
        payload: { sub: subject },
      } = await jwtVerify(form.get('subject_token') ?? '', publicKey, { issuer, audience: 'app' }));
    } catch {
      return [400, { error: 'invalid_grant', error_description: 'the ID token is not good here' }];
    }
    if (handle.refusal !== undefined) return [400, handle.refusal];
    const scope = form.get('scope') ?? undefined;
    const grant = await sign(
      { sub: subject, client_id: CLIENT_AT_SERVERS, resource: form.get('resource') ?? undefined, scope },
      audience,
      '5m',
      'oauth-id-jag+jwt',
    );
    return [
      200,
      { issued_token_type: handle.issuedTokenType, access_token: grant, token_type: 'N_A', expires_in: 300 },
    ];
  };

  const server = await listenLoopback(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: ['authorization_code', TOKEN_EXCHANGE],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      form.set('authorization', req.headers.authorization ?? '');
      exchanges.push(form);
      const [status, body] = await exchange(form);
      return send(res, status, body);
    }
    send(res, 404, { error: 'not_found' });
  });
  issuer = `http://127.0.0.1:${server.port}`;
  const handle: TestIdentityProvider = {
    port: server.port,
    close: () => server.close(),
    issuer,
    publicKey: { ...(await exportJWK(publicKey)), alg: 'ES256' },
    exchanges,
    idToken: (subject, expires = '1h') => sign({ sub: subject }, 'app', expires),
    refusal: undefined,
    issuedTokenType: ID_JAG,
  };
  return handle;
}
