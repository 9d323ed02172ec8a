import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServeDeployment } from '../server/serve-deployment.js';
import { Server } from '../server/server.js';

/** A module `mcpwire serve` cannot serve: the message says what was found and what was expected. */
export class ServerModuleError extends Error {
  override name = 'ServerModuleError';
}

const JAVASCRIPT = new Set(['.js', '.mjs', '.cjs']);
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);
const EXPECTED = 'a Server, or a function that returns one, as its default export or as "server"';

/** How a module gave its server: the instance itself, or a function serve called with the deployment. */
export type ServerSource = 'instance' | 'factory';

/**
 * The `Server` the module at `path` (relative to the working directory) exports: its default export or
 * `server`, either a Server or a function that returns one (or a promise of one), called with `deployment`.
 * Throws ServerModuleError when the file is missing, cannot run here (TypeScript on a Node that does not
 * strip types), fails to load, or exports something else.
 */
export async function loadServerModule(
  path: string,
  deployment: ServeDeployment,
): Promise<{ server: Server; source: ServerSource }> {
  const file = resolve(path);
  const extension = extname(file);
  if (!existsSync(file)) throw new ServerModuleError(`${path}: no such file (looked for ${file})`);
  // process.features.typescript: 'strip' or 'transform' where Node runs TypeScript (22.10 on); @types/node 20 lacks it.
  if (TYPESCRIPT.has(extension) && !(process.features as { typescript?: unknown }).typescript) {
    throw new ServerModuleError(
      `${path} is TypeScript, which Node ${process.version} does not run by itself: use Node 22.18 or later ` +
        '(on 22.6 to 22.17, set NODE_OPTIONS=--experimental-strip-types), or compile it to JavaScript',
    );
  }
  if (!JAVASCRIPT.has(extension) && !TYPESCRIPT.has(extension)) {
    throw new ServerModuleError(
      `${path}: mcpwire serve loads a JavaScript module (.js, .mjs, .cjs) or, where Node strips types, ` +
        `TypeScript (.ts, .mts); not a "${extension || 'file without extension'}"`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (err) {
    throw new ServerModuleError(`${path} did not load: ${(err as Error).message ?? String(err)}`);
  }
  // A CommonJS module's exports object is its default export: its "server" is found there too.
  const candidates = [
    ['its default export', module.default],
    ['its export "server"', module.server],
    ['its export "server"', (module.default as Record<string, unknown> | undefined)?.server],
  ].filter(([, value]) => value !== undefined) as [string, unknown][];
  const servable = (value: unknown) => value instanceof Server || typeof value === 'function';
  // Nothing servable: the most specific export found is the one to name.
  const [name, exported] = candidates.find(([, value]) => servable(value)) ??
    candidates.at(-1) ?? [undefined];
  if (name === undefined) {
    const names = Object.keys(module).filter((key) => key !== 'default');
    const found = names.length === 0 ? 'nothing' : names.map((key) => `"${key}"`).join(', ');
    throw new ServerModuleError(`${path} exports ${found}; mcpwire serve expects ${EXPECTED}`);
  }
  if (typeof exported !== 'function')
    return { server: checked(exported, `${path}: ${name} is`), source: 'instance' };
  if (/^class\b/.test(Function.prototype.toString.call(exported))) {
    throw new ServerModuleError(
      `${path}: ${name} is the class ${exported.name || '(anonymous)'}; mcpwire serve expects ${EXPECTED}`,
    );
  }
  let made: unknown;
  try {
    made = await (exported as (deployment: ServeDeployment) => unknown)(deployment);
  } catch (err) {
    throw new ServerModuleError(
      `${path}: the function of ${name} threw: ${(err as Error).message ?? String(err)}`,
    );
  }
  return { server: checked(made, `${path}: the function of ${name} returned`), source: 'factory' };
}

/** `value` when it is a Server of this copy of mcpwire; ServerModuleError saying what it is otherwise. */
function checked(value: unknown, what: string): Server {
  if (value instanceof Server) return value;
  const className = (value as { constructor?: { name?: string } } | null)?.constructor?.name;
  if (className === 'Server' && typeof (value as { tool?: unknown }).tool === 'function') {
    // Another copy's Server lacks what this copy's transports reach into; serving it would fail later, obscurely.
    throw new ServerModuleError(
      `${what} a Server of another copy of mcpwire than this command's: run the mcpwire installed beside the ` +
        'module (npx mcpwire serve …), or import Server from the package this command belongs to',
    );
  }
  throw new ServerModuleError(`${what} ${describe(value)}; mcpwire serve expects ${EXPECTED}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const className = value.constructor?.name;
  return className && className !== 'Object' ? `an instance of ${className}` : 'a plain object';
}
