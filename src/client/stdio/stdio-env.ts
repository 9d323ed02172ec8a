/**
 * The variables a spawned stdio server inherits from this process when nothing else is said:
 * enough to find programs, a home, a temp dir and a locale, and nothing else, so that secrets in
 * the parent's environment (tokens, keys) do not leak into every server it starts.
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMFILES',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'TMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'];

/**
 * The environment for a spawned stdio server: the allow-listed variables of this process
 * (INHERITED_ENV_VARS), then `extra` over them. Inherited values that start with `()` are left
 * out: they are exported shell functions, which a child shell would run.
 */
export function stdioEnvironment(extra?: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV_VARS) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return extra === undefined ? env : Object.assign(env, extra);
}
