import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { DPoPProofs } from '../http/dpop-proofs.js';
import { type LoopbackServer, listenLoopback, oneHeader, readBody } from './http-loopback.js';

/** What a test authorization server was asked, and the tokens it issued. */
export interface AuthorizationServerLog {
  /** The query of each authorization request. */
  authorizations: URLSearchParams[];
  /** The form of each token request, with its Authorization header as `authorization`. */
  tokenRequests: URLSearchParams[];
  registrations: number;
  /** The body of each registration request. */
  registrationRequests: Record<string, unknown>[];
  /** Introspection requests (RFC 7662), each with the credentials it carried as `authorization`. */
  introspections: URLSearchParams[];
}

/** What a token or refresh token grants: scopes, for a resource, bound to a DPoP key's thumbprint (`jkt`) or not. */
export interface Grant {
  scopes: string[];
  resource: string | null;
  jkt?: string;
}

/** An OAuth 2.1 authorization server on loopback whose user approves every request at once. */
export interface TestAuthorizationServer extends LoopbackServer {
  readonly issuer: string;
  readonly log: AuthorizationServerLog;
  /** The access tokens issued and not revoked, with their scopes and the resource they are for. */
  readonly tokens: Map<string, Grant>;
  /** Fields that replace those of its metadata (e.g. `code_challenge_methods_supported`). */
  metadata: Record<string, unknown>;
  /** The `iss` its authorization responses carry (RFC 9207), undefined for none. Default its issuer. */
  iss: string | undefined;
  /** The OAuth error its registration endpoint answers (HTTP 400) instead of registering, when set. */
  registrationError: { error: string; error_description?: string } | undefined;
  /** The `expires_in` of the tokens it issues, in seconds. Default 3600. */
  expiresIn: number;
  /** Whether a refresh token is good once (rotated: the refresh answers a new one). Default false. */
  rotateRefreshTokens: boolean;
  /**
   * The public keys of machine clients that authenticate with a signed JWT (private_key_jwt), by client id: their
   * client credentials requests must carry an assertion it verifies (issuer and subject the client, audience this
   * server's issuer, unexpired, its `jti` not seen before).
   */
  readonly clientKeys: Map<string, JWK>;
  /**
   * The public key of the workload identity provider it trusts (SEP-1933): a JWT-bearer grant's assertion must be
   * signed by it, for this server's issuer, unexpired; else the grant is refused (400 invalid_grant). None: refused.
   */
  workloadKey: JWK | undefined;
  /**
   * The public key of the enterprise identity provider it trusts (SEP-990): a JWT-bearer grant whose assertion is an
   * ID-JAG (typed `oauth-id-jag+jwt`) must be signed by it, for this server's issuer and the resource asked,
   * unexpired, and name the client that authenticates (`robot`); else 400 invalid_grant. None: refused.
   */
  identityProviderKey: JWK | undefined;
  /**
   * Whether it issues DPoP-bound tokens (RFC 9449): its metadata offers ES256, and a token request with a proof gets
   * tokens bound to the proof's key (`DPoP`), its refresh token good only with a proof of that key. Default false.
   */
  dpop: boolean;
  /** The nonce its token endpoint wants DPoP proofs to carry (asked for with use_dpop_nonce), if any. */
  dpopNonce: string | undefined;
  /** Forgets what it was asked, the tokens and the overrides. */
  reset(): void;
}

/** The machine client it knows beforehand (client credentials grant): `robot`, secret `robot-secret`. */
const ROBOT = 'robot:robot-secret';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Whether the form's client assertion is good: signed by the key of its `client_id`, for `issuer`, used once. */
async function assertedBy(
  form: URLSearchParams,
  keys: ReadonlyMap<string, JWK>,
  issuer: string,
  seen: Set<string>,
): Promise<boolean> {
  const client = form.get('client_id') ?? '';
  const key = keys.get(client);
  if (key === undefined) return false;
  try {
    const { payload } = await jwtVerify(form.get('client_assertion') ?? '', await importJWK(key, key.alg), {
      issuer: client,
      subject: client,
      audience: issuer,
      requiredClaims: ['jti', 'exp'],
    });
    if (seen.has(payload.jti!)) return false;
    seen.add(payload.jti!);
    return true;
  } catch {
    return false;
  }
}

const WORKLOAD_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Whether a JWT-bearer grant's assertion is good here: a workload's identity token signed by `workloadKey`, or an
 * ID-JAG signed by `identityProviderKey` for the client that authenticated; for `issuer`, unexpired.
 */
async function asserted(
  form: URLSearchParams,
  keys: Pick<TestAuthorizationServer, 'workloadKey' | 'identityProviderKey'>,
  issuer: string,
): Promise<boolean> {
  const token = form.get('assertion') ?? '';
  try {
    const idJag = decodeProtectedHeader(token).typ === 'oauth-id-jag+jwt';
    const key = idJag ? keys.identityProviderKey : keys.workloadKey;
    if (key === undefined) return false;
    const { payload } = await jwtVerify(token, await importJWK(key, key.alg), {
      audience: issuer,
      requiredClaims: ['exp'],
      ...(idJag && { typ: 'oauth-id-jag+jwt' }),
    });
    if (!idJag) return true;
    const robot = form.get('authorization') === `Basic ${Buffer.from(ROBOT).toString('base64')}`;
    return robot && payload.client_id === 'robot' && payload.resource === form.get('resource');
  } catch {
    return false;
  }
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/**
 * Starts a test authorization server: RFC 8414 metadata, dynamic registration (every client is
 * `registered` / `s3cret`, after `prefix`), an authorization endpoint that redirects at once with a code
 * and its `iss`, and a token endpoint that checks PKCE (S256) and the refresh tokens it issued, and gives the pre-registered
 * machine client `robot` / `robot-secret` tokens of its own (client credentials, no refresh token), as it does
 * the machine clients whose keys are in `clientKeys` (private_key_jwt), workloads whose identity token
 * `workloadKey` signed, and `robot` with an ID-JAG `identityProviderKey` signed (the JWT-bearer grant). Tokens
 * (`token-N`, after `prefix`) get the scopes the authorization asked for, refreshed ones the same. Its
 * introspection endpoint (`/introspect`) answers the resource server `resource-server` / `rs-secret` about
 * them, with `sub` "ada" and `aud` their resource.
 */
export async function startAuthorizationServer(prefix = ''): Promise<TestAuthorizationServer> {
  const log: AuthorizationServerLog = {
    authorizations: [],
    tokenRequests: [],
    registrations: 0,
    registrationRequests: [],
    introspections: [],
  };
  const tokens = new Map<string, Grant>();
  const clientKeys = new Map<string, JWK>();
  const seenAssertions = new Set<string>();
  const proofs = new DPoPProofs();
  /** Each code's PKCE challenge, scopes and resource. */
  const codes = new Map<string, { challenge: string; scopes: string[]; resource: string | null }>();
  const refreshTokens = new Map<string, Grant>();
  let issued = 0;
  let issuer = '';
  const server = await listenLoopback(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, issuer);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', WORKLOAD_GRANT],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        authorization_response_iss_parameter_supported: true,
        ...(handle.dpop && { dpop_signing_alg_values_supported: ['ES256'] }),
        ...handle.metadata,
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      log.registrations++;
      const asked = JSON.parse(await readBody(req)) as Record<string, unknown>;
      log.registrationRequests.push(asked);
      if (handle.registrationError !== undefined) return send(res, 400, handle.registrationError);
      return send(res, 201, { ...asked, client_id: `${prefix}registered`, client_secret: 's3cret' });
    }
    if (url.pathname === '/authorize') {
      const query = url.searchParams;
      log.authorizations.push(query);
      const code = `code-${log.authorizations.length}`;
      codes.set(code, {
        challenge: query.get('code_challenge') ?? '',
        scopes: query.get('scope')?.split(' ') ?? [],
        resource: query.get('resource'),
      });
      const back = new URL(query.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (query.has('state')) back.searchParams.set('state', query.get('state')!);
      if (handle.iss !== undefined) back.searchParams.set('iss', handle.iss);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      form.set('authorization', req.headers.authorization ?? '');
      log.tokenRequests.push(form);
      // DPoP (RFC 9449 §5): the tokens are bound to the proof's key, a refresh token to the key it was issued for.
      let jkt: string | undefined;
      if (handle.dpop && req.headers.dpop !== undefined) {
        const nonce = handle.dpopNonce;
        const proof = await proofs.check(oneHeader(req.headers.dpop), {
          method: 'POST',
          url: `${issuer}/token`,
          nonce,
        });
        if ('problem' in proof) {
          if (proof.nonce) res.setHeader('dpop-nonce', nonce!);
          return send(res, 400, {
            error: proof.nonce ? 'use_dpop_nonce' : 'invalid_dpop_proof',
            error_description: proof.problem,
          });
        }
        jkt = proof.jkt;
      }
      let grant: Grant | undefined;
      if (form.get('grant_type') === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (
          code !== undefined &&
          createHash('sha256').update(verifier).digest('base64url') === code.challenge
        ) {
          codes.delete(form.get('code')!);
          grant = code;
        }
      } else if (form.get('grant_type') === 'refresh_token') {
        grant = refreshTokens.get(form.get('refresh_token') ?? '');
        if (handle.rotateRefreshTokens) refreshTokens.delete(form.get('refresh_token') ?? '');
      }
      const workload = form.get('grant_type') === WORKLOAD_GRANT;
      const machine = workload || form.get('grant_type') === 'client_credentials';
      if (machine) {
        // An assertion vouches for the client; a client of its own, its secret or its signed assertion.
        if (workload) {
          if (!(await asserted(form, handle, issuer)))
            return send(res, 400, {
              error: 'invalid_grant',
              error_description: 'the assertion is not good here',
            });
        } else {
          const authenticated =
            form.get('client_assertion_type') === JWT_BEARER
              ? await assertedBy(form, clientKeys, issuer, seenAssertions)
              : form.get('authorization') === `Basic ${Buffer.from(ROBOT).toString('base64')}`;
          if (!authenticated) return send(res, 401, { error: 'invalid_client' });
        }
        grant = { scopes: form.get('scope')?.split(' ') ?? [], resource: form.get('resource') };
      }
      if (grant === undefined) return send(res, 400, { error: 'invalid_grant' });
      if (grant.jkt !== undefined && grant.jkt !== jkt)
        return send(res, 400, { error: 'invalid_dpop_proof', error_description: 'not the key of the grant' });
      grant = { scopes: grant.scopes, resource: grant.resource, jkt };
      const token = `${prefix}token-${++issued}`;
      tokens.set(token, grant);
      // No refresh token for a machine client (RFC 6749 §4.4.3): it asks again.
      if (!machine) refreshTokens.set(`${prefix}refresh-${issued}`, grant);
      return send(res, 200, {
        access_token: token,
        token_type: jkt === undefined ? 'Bearer' : 'DPoP',
        expires_in: handle.expiresIn,
        ...(!machine && { refresh_token: `${prefix}refresh-${issued}` }),
        ...(grant.scopes.length > 0 && { scope: grant.scopes.join(' ') }),
      });
    }
    if (url.pathname === '/introspect' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      form.set('authorization', req.headers.authorization ?? '');
      log.introspections.push(form);
      if (
        req.headers.authorization !== `Basic ${Buffer.from('resource-server:rs-secret').toString('base64')}`
      ) {
        return send(res, 401, { error: 'invalid_client' });
      }
      const grant = tokens.get(form.get('token') ?? '');
      if (grant === undefined) return send(res, 200, { active: false });
      return send(res, 200, {
        active: true,
        sub: 'ada',
        scope: grant.scopes.join(' '),
        aud: grant.resource,
        ...(grant.jkt !== undefined && { cnf: { jkt: grant.jkt } }),
        exp: Math.floor(Date.now() / 1000) + handle.expiresIn,
      });
    }
    send(res, 404, { error: 'not_found' });
  });
  issuer = `http://127.0.0.1:${server.port}`;
  const handle: TestAuthorizationServer = {
    port: server.port,
    close: () => server.close(),
    issuer,
    log,
    tokens,
    metadata: {},
    iss: issuer,
    registrationError: undefined,
    expiresIn: 3600,
    rotateRefreshTokens: false,
    clientKeys,
    workloadKey: undefined,
    identityProviderKey: undefined,
    dpop: false,
    dpopNonce: undefined,
    reset() {
      log.authorizations = [];
      log.tokenRequests = [];
      log.registrations = 0;
      log.registrationRequests = [];
      log.introspections = [];
      tokens.clear();
      codes.clear();
      refreshTokens.clear();
      clientKeys.clear();
      seenAssertions.clear();
      handle.metadata = {};
      handle.iss = issuer;
      handle.registrationError = undefined;
      handle.expiresIn = 3600;
      handle.rotateRefreshTokens = false;
      handle.workloadKey = undefined;
      handle.identityProviderKey = undefined;
      handle.dpop = false;
      handle.dpopNonce = undefined;
    },
  };
  return handle;
}
