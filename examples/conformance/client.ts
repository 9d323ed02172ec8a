// The client fixture of the official MCP conformance suite (../shared/conformance/FIXTURE.md §2):
// our Client connected with connectUrl (era negotiation), doing what each scenario asks; the auth/ ones
// through an OAuthClient whose user signs in at once (the mock authorization server redirects at once).
// The scenarios conformance 0.2.0-alpha.12 added are in client-2026.ts (see FIXTURE-CLIENT-2026.md).
//   usage: MCP_CONFORMANCE_SCENARIO=<scenario> [MCP_CONFORMANCE_PROTOCOL_VERSION=<revision>] npm run fixture:client -- <server-url>
// The conformance CLI appends the server URL, so it is the last argument. Exits 0 once the scenario's
// work is done and the session is closed, 1 when anything failed (the reason goes to stderr).

import { exportJWK, importPKCS8 } from 'jose';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { OAuthClient, type OAuthClientInformation } from '../../src/client/oauth/oauth-client.js';
import { SCENARIOS_2026, scenarioOptions } from './client-2026.js';
import { expectSuccess, log, report, type Scenario } from './client-scenario.js';
import { SCENARIOS_SKILLS } from './client-skills.js';

/**
 * Bounds every request, and the server/discover probe, well inside the CLI's per-scenario timeout (30 s by
 * default), so a hang becomes an error. conformance-client-next.sh, whose legs start every client at once,
 * raises both (FIXTURE_REQUEST_TIMEOUT_MS): under that load a mock may take longer than the probe's
 * default 5 s to answer, and an auth/ scenario signs in within the probe's fetch (its first POST gets the 401).
 */
const REQUEST_TIMEOUT_MS = Number(process.env.FIXTURE_REQUEST_TIMEOUT_MS) || 15_000;

const SCENARIOS: Record<string, Scenario> = {
  // initialize and initialized are Client.connect's work; the mock declares no tools, so listing them
  // is only done where the server offers them (the client refuses to ask for an undeclared feature).
  initialize: async (session) => {
    if (session.serverCapabilities.tools !== undefined) await session.listTools();
  },
  tools_call: async (session) => {
    report(await expectSuccess(session.callTool('add_numbers', { a: 5, b: 3 })));
  },
  // The mock sends its elicitation/create on the standalone GET stream; the form handler below accepts
  // with nothing filled in, and the Client completes the content from the schema's defaults (SEP-1034).
  'elicitation-sep1034-client-defaults': async (session) => {
    report(await expectSuccess(session.callTool('test_client_elicitation_defaults')));
  },
  // The mock ends the call's SSE stream after a priming event (retry: 500); the transport resumes it
  // with GET + Last-Event-ID after exactly that wait, and the result arrives there.
  'sse-retry': async (session) => {
    report(await expectSuccess(session.callTool('test_reconnection')));
  },
  ...SCENARIOS_2026,
  ...SCENARIOS_SKILLS,
};

/** Every auth/ scenario: sign in as the 401 asks, list the tools, call test-tool (step-up on the way where asked). */
const authorized: Scenario = async (session) => {
  await session.listTools();
  report(await expectSuccess(session.callTool('test-tool', {})));
};
const AUTH_SCENARIOS = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
  // backcompat: a 2025-03-26 server, with authorization server metadata at its own origin or none at all
  '2025-03-26-oauth-metadata-backcompat',
  '2025-03-26-oauth-endpoint-fallback',
  // 2026-07-28: the resource's metadata names another server (the client must stop), SEP-2207's refresh
  // tokens, re-registration when the resource's authorization server changes (SEP-2352), and the issuer
  // checks of RFC 9207 and RFC 8414 (SEP-2468), where the client must stop before redeeming the code
  'resource-mismatch',
  'offline-access-scope',
  'offline-access-not-supported',
  'authorization-server-migration',
  'iss-supported',
  'iss-not-advertised',
  'iss-supported-missing',
  'iss-wrong-issuer',
  'iss-unexpected',
  'iss-normalized',
  'metadata-issuer-mismatch',
];
// Extensions: a machine client, no one signs in (the client credentials grant, with its secret or a signed
// assertion; a workload's identity token, SEP-1933); a person's identity provider vouches (SEP-990)
const MACHINE_SCENARIOS = [
  'client-credentials-basic',
  'client-credentials-jwt',
  'wif-jwt-bearer',
  'enterprise-managed-authorization',
];
// Extension: DPoP-bound tokens (SEP-1932), with the nonces the servers ask for or without
const DPOP_SCENARIOS = ['dpop', 'dpop-nonce'];
for (const name of [...AUTH_SCENARIOS, ...MACHINE_SCENARIOS, ...DPOP_SCENARIOS])
  SCENARIOS[`auth/${name}`] = authorized;

/**
 * What the auth scenarios sign in with: a redirect URI nothing listens on, the CIMD URL the suite expects,
 * pre-registered credentials where the scenario gives them (MCP_CONFORMANCE_CONTEXT), and a "user" who
 * approves at once: the authorization URL is requested and the redirect it answers is where the code is.
 */
async function oauthFor(scenario: string): Promise<OAuthClient | undefined> {
  if (!scenario.startsWith('auth/')) return undefined;
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>;
  if (MACHINE_SCENARIOS.includes(scenario.slice('auth/'.length))) return machineFor(context);
  const preRegistered: OAuthClientInformation | undefined =
    context.client_id === undefined
      ? undefined
      : { client_id: context.client_id, client_secret: context.client_secret };
  return new OAuthClient({
    redirectUri: 'http://127.0.0.1:1/callback',
    clientName: 'mcpwire-conformance-client',
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    client: preRegistered,
    authorize: async (url) => {
      const response = await fetch(url, { redirect: 'manual' });
      const location = response.headers.get('location');
      await response.body?.cancel();
      if (location === null)
        throw new Error(`the authorization endpoint answered ${response.status}, no redirect`);
      return new URL(location, url);
    },
  });
}

/**
 * The scenario's machine client: the person's ID token at their identity provider, the workload's identity token,
 * its secret, or its private key (PKCS#8 PEM) as the JWK the OAuthClient signs with.
 */
async function machineFor(context: Record<string, string>): Promise<OAuthClient> {
  const {
    client_id,
    client_secret,
    private_key_pem: pem,
    signing_algorithm: alg,
    valid_jwt: token,
    idp_issuer,
    idp_client_id,
    idp_id_token: idToken,
  } = context;
  if (idp_issuer !== undefined) {
    const identityProvider = {
      issuer: idp_issuer,
      client: { client_id: idp_client_id },
      idToken: () => idToken,
    };
    return new OAuthClient({ grant: 'enterprise', client: { client_id, client_secret }, identityProvider });
  }
  if (token !== undefined)
    return new OAuthClient({ grant: 'jwt_bearer', client: { client_id }, assertion: () => token });
  if (pem === undefined)
    return new OAuthClient({ grant: 'client_credentials', client: { client_id, client_secret } });
  const privateKey = { ...(await exportJWK(await importPKCS8(pem, alg, { extractable: true }))), alg };
  return new OAuthClient({ grant: 'client_credentials', client: { client_id, privateKey } });
}

/**
 * The revision the suite asks for: alpha.12 sets MCP_CONFORMANCE_PROTOCOL_VERSION on every run (the
 * --requirements or --spec-version revision, else the scenario's era), 0.1.16 never does. It becomes the
 * Client's protocolVersion: a 2025 one makes it legacy-only (initialize offers that version), 2026-07-28
 * modern-only (connectUrl probes with server/discover). Unpinned (0.1.16), the Client is era 'auto'.
 */
function requestedProtocolVersion(): { protocolVersion?: string } {
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  return version === undefined || version === '' ? {} : { protocolVersion: version };
}

function clientFor(scenario: string): Client {
  return new Client(
    { name: 'mcpwire-conformance-client', version: '0.1.0' },
    {
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      probeTimeoutMs: REQUEST_TIMEOUT_MS,
      elicitation: {
        form: (params) => {
          log(`elicitation/create: ${params.message}; accepting with the schema's defaults`);
          return { action: 'accept', content: {} };
        },
      },
      onerror: (err) => log(`error: ${err.message}`),
      ...requestedProtocolVersion(),
      ...scenarioOptions(scenario),
    },
  );
}

async function main(): Promise<number> {
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const scenario = SCENARIOS[name];
  if (scenario === undefined) {
    log(
      `unknown scenario ${JSON.stringify(name)} (MCP_CONFORMANCE_SCENARIO); ` +
        `this client runs ${Object.keys(SCENARIOS).join(', ')}`,
    );
    return 1;
  }
  const url = process.argv.at(-1);
  if (url === undefined || !URL.canParse(url)) {
    log(`usage: MCP_CONFORMANCE_SCENARIO=<scenario> client.ts <server-url> (got ${JSON.stringify(url)})`);
    return 1;
  }
  const client = clientFor(name);
  const oauth = await oauthFor(name);
  // As a user would: negotiation finds the era and the transport (server/discover, then initialize).
  const session = await connectUrl(client, url, { fetch: oauth?.fetch });
  log(`connected to ${session.serverInfo.name} (${session.era}, protocol ${session.protocolVersion})`);
  try {
    await scenario(session);
  } finally {
    await session.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
