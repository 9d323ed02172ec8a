import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A bundle made for browsers, as a web app's bundler would make it from mcpwire. */
export interface BrowserBundle {
  /** The bundle's JavaScript. */
  code: string;
  /** What went into it, by input path (`dist/…` for mcpwire itself, `node_modules/…` for its dependencies). */
  inputs: Metafile['inputs'];
}

/**
 * Bundles the module `source` (its imports resolved from the repository's root) with esbuild for
 * `platform: 'browser'`, which fails on any `node:` import. `mcpwire/browser` resolves through package.json's
 * `exports` to `dist/` (the package refers to itself): `npm run build` first.
 */
export async function bundleForBrowser(
  source: string,
  options: Pick<BuildOptions, 'format' | 'minify' | 'globalName'> = {},
): Promise<BrowserBundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'esm',
    ...options,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0].text, inputs: result.metafile.inputs };
}
