import { randomInt } from 'node:crypto'
import { badParam } from '../errors'

/** The links of an ad-tracking campaign (spec 2.4): the long link with its parameters, and the short link code. */

/** The query parameters of the long link, in the spec's order; they replace any of the same name in pageUrl. */
export const LINK_PARAMS = ['campaign_id', 'utm_campaign', 'utm_medium', 'utm_source', 'utm_content', 'utm_term'] as const

const SHORT_CODE_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const SHORT_CODE = /^[0-9A-Za-z]{8}$/

function nameOf(part: string): string {
  const raw = part.split('=')[0]
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/**
 * pageUrl with campaign_id and the utm parameters appended to its query, before any fragment.
 * The rest of pageUrl is kept as written; parameters with an empty value are left out.
 */
export function longUrl(pageUrl: string, params: readonly (readonly [string, string])[]): string {
  const hashAt = pageUrl.indexOf('#')
  const fragment = hashAt < 0 ? '' : pageUrl.slice(hashAt)
  const beforeFragment = hashAt < 0 ? pageUrl : pageUrl.slice(0, hashAt)
  const queryAt = beforeFragment.indexOf('?')
  const path = queryAt < 0 ? beforeFragment : beforeFragment.slice(0, queryAt)
  const names = params.map(([name]) => name)
  const kept = queryAt < 0 ? [] : beforeFragment.slice(queryAt + 1).split('&').filter((part) => part !== '' && !names.includes(nameOf(part)))
  const added = params.filter(([, value]) => value !== '').map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
  return `${path}?${[...kept, ...added].join('&')}${fragment}`
}

/** An absolute http(s) address with a host, without spaces or control characters. */
export function checkPageUrl(value: string): void {
  const rule = 'pageUrl must be an absolute http:// or https:// address without spaces'
  if (!/^https?:\/\/[^\s\u0000-\u001f\u007f]+$/i.test(value)) throw badParam('pageUrl', rule)
  let host = ''
  try {
    host = new URL(value).hostname
  } catch {
    // not parseable: no host
  }
  if (!host) throw badParam('pageUrl', rule)
}

/** A random 8-character code from letters and digits, drawn again while `taken` says it is in use. */
export function newShortCode(taken: (code: string) => boolean): string {
  for (;;) {
    let code = ''
    for (let i = 0; i < 8; i++) code += SHORT_CODE_ALPHABET[randomInt(SHORT_CODE_ALPHABET.length)]
    if (!taken(code)) return code
  }
}
