import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { OAuthState } from '../client/oauth/oauth-client.js';
import { OAuthTokenFile, signInFolder } from './oauth-token-file.js';

const SERVER = new URL('https://mcp.example.com/mcp');
const REDIRECT = 'http://127.0.0.1:4711/callback';
const STATE: OAuthState = {
  client: { issuer: 'https://as.example.com', client_id: 'c1', client_secret: 's' },
  tokens: { access_token: 'a1', token_type: 'Bearer', refresh_token: 'r1', expires_at: 1_000 },
};

let root: string;
let n = 0;
/** A folder of its own for each test, not yet made. */
const folder = () => join(root, `t${++n}`, 'mcpwire', 'oauth');

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpwire-token-file-'));
});
after(() => rm(root, { recursive: true, force: true }));

test('the folder: $XDG_CONFIG_HOME when absolute, else ~/.config; %APPDATA% on Windows', () => {
  assert.equal(signInFolder({ XDG_CONFIG_HOME: '/cfg' }, 'linux', '/home/ada'), '/cfg/mcpwire/oauth');
  assert.equal(
    signInFolder({ XDG_CONFIG_HOME: 'rel' }, 'linux', '/home/ada'),
    '/home/ada/.config/mcpwire/oauth',
  );
  assert.equal(signInFolder({}, 'darwin', '/Users/ada'), '/Users/ada/.config/mcpwire/oauth');
  assert.equal(
    signInFolder(
      { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', XDG_CONFIG_HOME: '/cfg' },
      'win32',
      'C:\\Users\\ada',
    ),
    'C:\\Users\\ada\\AppData\\Roaming\\mcpwire\\oauth',
  );
  assert.equal(
    signInFolder({}, 'win32', 'C:\\Users\\ada'),
    'C:\\Users\\ada\\AppData\\Roaming\\mcpwire\\oauth',
  );
});

test('saved by one run, loaded by the next: the file and its folder only the user can read', async () => {
  const dir = folder();
  const warnings: string[] = [];
  const first = new OAuthTokenFile(SERVER, dir, (text) => warnings.push(text));
  assert.equal(await first.store(REDIRECT).load(), undefined);
  await first.store(REDIRECT).save(STATE);

  const next = new OAuthTokenFile(SERVER, dir, (text) => warnings.push(text));
  assert.equal(await next.redirectUri(), REDIRECT);
  assert.deepEqual(await next.store(REDIRECT).load(), STATE);
  assert.equal((await stat(next.path)).mode & 0o777, 0o600);
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
  // Renamed into place: no temporary file left beside it.
  assert.deepEqual(await readdir(dir), [next.path.slice(dir.length + 1)]);
  assert.deepEqual(warnings, []);
});

test('one file per server: its origin and path, whatever the query', () => {
  const path = (url: string) => new OAuthTokenFile(new URL(url), '/f', () => {}).path;
  assert.equal(path('https://mcp.example.com/mcp?x=1#y'), path('https://MCP.example.com/mcp'));
  assert.notEqual(path('https://mcp.example.com/mcp'), path('https://mcp.example.com/other'));
  assert.notEqual(path('https://mcp.example.com/mcp'), path('http://mcp.example.com/mcp'));
  assert.match(path('https://mcp.example.com/mcp'), /^\/f\/mcp\.example\.com-mcp-[0-9a-f]{12}\.json$/);
});

test('a registration made with another redirect URI is left out; the tokens are kept', async () => {
  const dir = folder();
  await new OAuthTokenFile(SERVER, dir, () => {}).store(REDIRECT).save(STATE);
  const next = new OAuthTokenFile(SERVER, dir, () => {});
  assert.deepEqual(await next.store('http://127.0.0.1:4712/callback').load(), { tokens: STATE.tokens });
});

test('a corrupt file is warned about and left out, then replaced by the next save', async () => {
  const dir = folder();
  await mkdir(dir, { recursive: true });
  const file = new OAuthTokenFile(SERVER, dir, () => {});
  await writeFile(file.path, '{"server": "https://mcp.exa');
  const warnings: string[] = [];
  const corrupt = new OAuthTokenFile(SERVER, dir, (text) => warnings.push(text));
  assert.equal(await corrupt.redirectUri(), undefined);
  assert.equal(await corrupt.store(REDIRECT).load(), undefined);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /ignoring the saved sign-in .*\(not JSON: .*\); a new sign-in will replace it/);
  await corrupt.store(REDIRECT).save(STATE);
  assert.equal(JSON.parse(await readFile(file.path, 'utf8')).state.tokens.access_token, 'a1');
});

test('a file of another shape, or of another server, is left out; malformed parts are dropped', async () => {
  const dir = folder();
  await mkdir(dir, { recursive: true });
  const path = new OAuthTokenFile(SERVER, dir, () => {}).path;
  const load = async (content: unknown) => {
    await writeFile(path, JSON.stringify(content));
    const warnings: string[] = [];
    const state = await new OAuthTokenFile(SERVER, dir, (text) => warnings.push(text)).store(REDIRECT).load();
    return { state, warnings };
  };
  for (const content of [null, [1], { server: 'https://elsewhere/mcp', redirectUri: REDIRECT, state: {} }]) {
    const { state, warnings } = await load(content);
    assert.equal(state, undefined);
    assert.match(warnings.join(''), /not a sign-in for https:\/\/mcp\.example\.com\/mcp/);
  }
  const partial = await load({
    server: SERVER.href,
    redirectUri: REDIRECT,
    state: { client: { client_id: 'c1' }, tokens: { access_token: 'a1', token_type: 'Bearer' } },
  });
  assert.deepEqual(partial.state, { tokens: { access_token: 'a1', token_type: 'Bearer' } });
});

test('a file that cannot be read is warned about; a save that fails is warned about once, not thrown', async () => {
  const dir = folder();
  const file = new OAuthTokenFile(SERVER, dir, () => {});
  await mkdir(file.path, { recursive: true });
  const warnings: string[] = [];
  const unreadable = new OAuthTokenFile(SERVER, dir, (text) => warnings.push(text));
  assert.equal(await unreadable.store(REDIRECT).load(), undefined);
  assert.match(warnings[0], /ignoring the saved sign-in .*EISDIR/);

  // Renaming onto a folder fails: the run goes on.
  await unreadable.store(REDIRECT).save(STATE);
  await unreadable.store(REDIRECT).save(STATE);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1], /could not save the sign-in to .*; the next run will sign in again/);
  assert.deepEqual(await readdir(dir), [file.path.slice(dir.length + 1)]);
});
