import type { AppCsp, AppPermissions, AppResourceMeta } from './app-meta.js';

const CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const VISIBILITY = ['model', 'app'];
// An origin as CSP names one: scheme, host (its first label may be `*` for any subdomain), optional port.
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/** A view's URI must be `ui://` with something after it (SEP-1865: UI resources use the ui:// scheme). */
export function checkViewUri(uri: unknown): asserts uri is string {
  if (typeof uri !== 'string' || !/^ui:\/\/[^/?#\s]+/.test(uri) || !URL.canParse(uri)) {
    throw new TypeError(
      `An app's view is a ui:// resource (ui://server/view): ${JSON.stringify(uri)} is not one`,
    );
  }
}

/** Throws naming the rule when a view's `_meta.ui` is not what hosts read. */
export function checkViewMeta(meta: AppResourceMeta): void {
  if (meta.csp !== undefined) checkCsp(meta.csp);
  if (meta.permissions !== undefined) checkPermissions(meta.permissions);
  if (meta.domain !== undefined && (typeof meta.domain !== 'string' || meta.domain === '')) {
    throw new TypeError("An app's domain is a non-empty string in the format its host documents");
  }
  if (meta.prefersBorder !== undefined && typeof meta.prefersBorder !== 'boolean') {
    throw new TypeError("An app's prefersBorder is true or false");
  }
}

function checkCsp(csp: AppCsp): void {
  for (const key of Object.keys(csp)) {
    if (!(CSP_LISTS as readonly string[]).includes(key)) {
      throw new TypeError(`An app's csp has no "${key}": it lists ${CSP_LISTS.join(', ')}`);
    }
  }
  for (const list of CSP_LISTS) {
    const domains = csp[list];
    if (domains === undefined) continue;
    if (!Array.isArray(domains)) throw new TypeError(`csp.${list} is an array of origins`);
    for (const domain of domains) {
      if (typeof domain !== 'string' || !ORIGIN.test(domain)) {
        throw new TypeError(
          `csp.${list}: ${JSON.stringify(domain)} is not an origin (scheme://host[:port], no path; ` +
            'https://*.example.com for its subdomains)',
        );
      }
    }
  }
}

function checkPermissions(permissions: AppPermissions): void {
  for (const [key, value] of Object.entries(permissions)) {
    if (!(PERMISSIONS as readonly string[]).includes(key)) {
      throw new TypeError(`An app's permissions have no "${key}": they are ${PERMISSIONS.join(', ')}`);
    }
    if (value === null || typeof value !== 'object' || Object.keys(value).length > 0) {
      throw new TypeError(`permissions.${key} is {} when asked for`);
    }
  }
}

/** A tool's `visibility` is a non-empty list of "model" and "app". */
export function checkVisibility(visibility: unknown): void {
  if (
    !Array.isArray(visibility) ||
    visibility.length === 0 ||
    visibility.some((who) => !VISIBILITY.includes(who as string))
  ) {
    throw new TypeError(
      `A tool's visibility lists who may call it, "model", "app" or both: ${JSON.stringify(visibility)} does not`,
    );
  }
}
