import { watch } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** A change is acted on once the files have been quiet this long: an editor's save is several events. */
const SETTLE_MS = 200;
/** Not the module's own files: installed packages, and dot-folders (.git, editors' swap and state). */
const IGNORED = /(^|[\\/])(node_modules|\.[^\\/]+)([\\/]|$)/;

/**
 * Calls `changed` with a changed file's path (relative to the working directory) once the files under the
 * folder of `module` have settled after a change, node_modules and dot-files aside: what `serve --watch`
 * reloads on. Returns what stops watching.
 */
export function watchModule(module: string, changed: (file: string) => void): () => void {
  const folder = dirname(resolve(module));
  let timer: NodeJS.Timeout | undefined;
  let last = '';
  const watcher = watch(folder, { recursive: true }, (_event, name) => {
    if (name === null || IGNORED.test(name)) return;
    last = relative(process.cwd(), resolve(folder, name)) || name;
    clearTimeout(timer);
    timer = setTimeout(() => changed(last), SETTLE_MS);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
