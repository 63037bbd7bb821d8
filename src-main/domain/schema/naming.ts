import { badParam } from '../errors'
import { EVENT_BASE_COLUMNS, PROFILE_BASE_COLUMNS, SCHEMA_ID } from './types'

/**
 * The text rules of the tracking plan (spec part 8): what a new id, a display name and a remark
 * may hold. The route schemas use the same patterns, so /openapi.json states them.
 */

/**
 * "No special characters": letters of any script, digits, spaces and everyday punctuation (with
 * the full-width forms that CJK input produces). Refused: control characters, line breaks, and the
 * characters that break markup, quoting or templates: < > " ' ` \ { } ^ $.
 */
const PLAIN_CHARS = "\\p{L}\\p{M}\\p{N} _\\-.,:;!?()\\[\\]/&+#%@*=~|，。、：；！？（）【】《》·…–—"
export const NAME_MAX = 50
export const REMARK_MAX = 100
export const NAME_PATTERN = `^[${PLAIN_CHARS}]*$`
export const PLAIN_TEXT_RULE = 'letters, digits, spaces and _ - . , : ; ! ? ( ) [ ] / & + # % @ * = ~ | only'

/**
 * A new event id: a schema id of part 8 (`_checkout_v2` and 100 characters are valid). The SDK's
 * stricter `xwhat` rule (a letter or $ first, at most 99) is for the records data sends.
 */
export const NEW_EVENT_ID = SCHEMA_ID
export const NEW_EVENT_ID_RULE = 'a new event id has letters, digits and underscores, does not start with a digit and has at most 100 characters'
export const NEW_PROPERTY_ID_RULE = 'a new property id has letters, digits and underscores, does not start with a digit and has at most 100 characters'
export const VIRTUAL_EVENT_ID_RULE = 'a virtual event id has letters, digits and underscores, does not start with a digit and has at most 100 characters'

/** Property ids are folded to lower case, as data folds them (spec-notes), so plan and data meet. */
export function foldPropertyId(id: string): string {
  return id.toLowerCase()
}

/** Checks an id that is about to create a property column; `param` names it in the 400. */
export function checkNewPropertyId(id: string, table: 'event_vd' | 'profile_vd', param: string): void {
  if (!SCHEMA_ID.test(id)) throw badParam(param, `${id}: ${NEW_PROPERTY_ID_RULE}`)
  const base: readonly string[] = table === 'event_vd' ? EVENT_BASE_COLUMNS : PROFILE_BASE_COLUMNS
  if (base.includes(id)) throw badParam(param, `${id} is a base column of ${table} and cannot be a property`)
}

export function checkNewEventId(id: string, param: string): void {
  if (!NEW_EVENT_ID.test(id)) throw badParam(param, `${id}: ${NEW_EVENT_ID_RULE}`)
}

export function checkVirtualEventId(id: string, param: string): void {
  if (!SCHEMA_ID.test(id)) throw badParam(param, `${id}: ${VIRTUAL_EVENT_ID_RULE}`)
}

/** A display name or remark as stored: an empty text means none. */
export function storedText(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}

