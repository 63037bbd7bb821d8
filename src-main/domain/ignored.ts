import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Unknown request fields are ignored, as the platform's server ignores them (tools written for it
 * send fields it does not read): never a 400. The transport gives each request a list in which the
 * domain notes the fields it passed over, and logs them at debug level.
 */
const ignoredOfRequest = new AsyncLocalStorage<string[]>()

/** Runs `next` with a fresh list of ignored fields (the transport does, per request). */
export function collectIgnored(list: string[], next: () => void): void {
  ignoredOfRequest.run(list, next)
}

/** Notes the fields of `record` not in `allowed` (named `<path>.<key>`, or `<key>` at the top). */
export function ignoreUnknown(record: Record<string, unknown>, allowed: readonly string[], path = ''): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) ignoredOfRequest.getStore()?.push(path ? `${path}.${key}` : key)
  }
}
