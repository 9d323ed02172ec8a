import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import type {
  OAuthClientInformation,
  OAuthState,
  OAuthStore,
  OAuthTokens,
} from '../client/oauth/oauth-client.js';

/** How long a refresh may hold the lock of a sign-in file before another process takes it for abandoned. */
const LOCK_STALE_MS = 30_000;
/** How long a process waits for the lock before refreshing without it. */
const LOCK_WAIT_MS = 35_000;
const LOCK_POLL_MS = 50;

/** What one file holds: whose sign-in it is, the redirect URI it was registered with, the OAuthClient's state. */
interface Saved {
  server: string;
  redirectUri: string;
  state: OAuthState;
}

/**
 * The folder `mcpwire call` keeps its sign-ins in: `mcpwire/oauth` in the user's configuration folder,
 * `$XDG_CONFIG_HOME` (when absolute, as the XDG spec requires) else `~/.config`, or `%APPDATA%` on Windows.
 */
export function signInFolder(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), 'mcpwire', 'oauth');
  }
  const xdg = env.XDG_CONFIG_HOME;
  return posix.join(xdg && posix.isAbsolute(xdg) ? xdg : posix.join(home, '.config'), 'mcpwire', 'oauth');
}

/**
 * The sign-in `mcpwire call` keeps for one MCP server (its URL's origin and path), in a file of its own that
 * only the user can read (0600, in a 0700 folder), replaced whole on each save (a temporary file renamed over
 * it), so a run that dies mid-save leaves the previous sign-in. A file that cannot be read or is not a
 * sign-in is warned about and left out: the person signs in again, and that sign-in replaces it.
 */
export class OAuthTokenFile {
  /** The file: readable name (host and path), and a hash of the whole key so that no two servers share one. */
  readonly path: string;
  private readonly server: string;
  private saved: Promise<Saved | undefined> | undefined;
  private saveFailed = false;

  constructor(
    serverUrl: URL,
    private readonly folder: string,
    private readonly warn: (text: string) => void,
  ) {
    this.server = `${serverUrl.origin}${serverUrl.pathname}`;
    const readable = `${serverUrl.host}${serverUrl.pathname}`.replace(/[^A-Za-z0-9.]+/g, '-').slice(0, 80);
    const hash = createHash('sha256').update(this.server).digest('hex').slice(0, 12);
    this.path = join(folder, `${readable}-${hash}.json`);
  }

  /** The redirect URI the saved registration was made with, if any: listening on its port again keeps it valid. */
  async redirectUri(): Promise<string | undefined> {
    return (await this.read())?.redirectUri;
  }

  /**
   * The OAuthStore of a run whose redirect URI is `redirectUri`. A registration made with another one is left
   * out (the client registers again): many authorization servers match redirect URIs exactly, loopback port
   * included, despite RFC 8252 §7.3. The tokens are kept: they do not depend on it.
   */
  store(redirectUri: string): OAuthStore {
    return {
      load: async () => {
        const saved = await this.read();
        if (saved === undefined || saved.redirectUri === redirectUri) return saved?.state;
        return saved.state.tokens === undefined ? {} : { tokens: saved.state.tokens };
      },
      save: (state) => this.write({ server: this.server, redirectUri, state }),
      exclusive: (refresh) => this.locked(refresh),
    };
  }

  /**
   * Runs `run` while this process holds the file's lock (`<file>.lock`, made with O_EXCL; another process waits
   * for it), reading the file anew inside. A lock older than LOCK_STALE_MS was left by a process that died holding
   * it and is taken over; past LOCK_WAIT_MS of waiting, `run` goes ahead unlocked, saying so.
   */
  private async locked<T>(run: () => Promise<T>): Promise<T> {
    const lock = `${this.path}.lock`;
    let held = false;
    try {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      for (const deadline = Date.now() + LOCK_WAIT_MS; !held; ) {
        held = await open(lock, 'wx', 0o600).then(
          async (file) => {
            await file.close();
            return true;
          },
          (err: NodeJS.ErrnoException) => {
            if (err.code !== 'EEXIST') throw err;
            return false;
          },
        );
        if (held) break;
        const since = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (since > LOCK_STALE_MS) await rm(lock, { force: true });
        else if (Date.now() > deadline) {
          this.warn(
            `mcpwire: ${lock} is still held after ${LOCK_WAIT_MS} ms: refreshing the sign-in without it\n`,
          );
          break;
        } else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
    } catch (err) {
      this.warn(
        `mcpwire: could not lock ${lock} (${(err as Error).message}): refreshing the sign-in without it\n`,
      );
    }
    this.saved = undefined;
    try {
      return await run();
    } finally {
      if (held) await rm(lock, { force: true });
    }
  }

  private read(): Promise<Saved | undefined> {
    this.saved ??= readFile(this.path, 'utf8').then(
      (text) => this.parse(text),
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') this.ignore(err.message);
        return undefined;
      },
    );
    return this.saved;
  }

  private parse(text: string): Saved | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.ignore(`not JSON: ${(err as Error).message}`);
      return undefined;
    }
    const saved = value as Partial<Saved> | null;
    if (
      saved?.server !== this.server ||
      typeof saved.redirectUri !== 'string' ||
      typeof saved.state !== 'object' ||
      saved.state === null
    ) {
      this.ignore(`not a sign-in for ${this.server}`);
      return undefined;
    }
    const { client, tokens } = saved.state;
    const state: OAuthState = {};
    if (isClient(client)) state.client = client;
    if (isTokens(tokens)) state.tokens = tokens;
    return { server: saved.server, redirectUri: saved.redirectUri, state };
  }

  private ignore(why: string): void {
    this.warn(`mcpwire: ignoring the saved sign-in ${this.path} (${why}); a new sign-in will replace it\n`);
  }

  /** Replaces the file whole; a failure is warned about once, and the run goes on with its tokens in memory. */
  private async write(saved: Saved): Promise<void> {
    const temp = `${this.path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      const file = await open(temp, 'wx', 0o600);
      try {
        await file.writeFile(`${JSON.stringify(saved, null, 2)}\n`);
        // On disk before the rename, so that the name never points at a file not yet written.
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.path);
    } catch (err) {
      await rm(temp, { force: true });
      if (this.saveFailed) return;
      this.saveFailed = true;
      this.warn(
        `mcpwire: could not save the sign-in to ${this.path} (${(err as Error).message}); the next run will sign in again\n`,
      );
    }
  }
}

function isClient(value: unknown): value is OAuthClientInformation & { issuer: string } {
  const client = value as Partial<OAuthClientInformation & { issuer: string }> | undefined;
  return typeof client?.client_id === 'string' && typeof client.issuer === 'string';
}

function isTokens(value: unknown): value is OAuthTokens {
  const tokens = value as Partial<OAuthTokens> | undefined;
  return typeof tokens?.access_token === 'string' && typeof tokens.token_type === 'string';
}
