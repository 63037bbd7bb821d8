import type { Warehouse } from '../../warehouse'
import type { Dialect } from '../../warehouse/dialect'
import { PROFILE_EVENTS } from '../schema/presets'
import type { DataType } from '../schema/types'
import { firstValues, INFERENCE_SAMPLE, inferJson } from './infer'
import {
  eventCol, identityChecks, notesList, problemCase, propertyChecks, propertyIdOf, RESERVED_IDS, unsetCol, userCol,
  type Check, type PropertyPlan,
} from './norm'
import { literal, unordered } from './sql'

/**
 * SDK records (spec-notes "Data records") from `stage_records` into `norm`. Event records carry
 * event properties; the six profile operations carry user properties.
 *
 * Two passes over the lines. The first lists the property keys each class of record carries (one
 * parse per record, grouped by key list). The second parses each record once (from_json into a
 * struct of every key, each value as JSON text), reads the values by the first character of their
 * text (see the dialect's `jsonText...`), and checks them. A record whose shape is certainly fine (a JSON object,
 * xcontext an object, no bad key) is judged by the value checks alone; only the others go through
 * the structural checks, which parse their line again: those cost a parse per check, and almost
 * every record passes them.
 *
 * Read leniently (the collector), only a record without a usable identity (xwho, xwhat, xwhen) or
 * that is not a JSON object is refused; a value that does not fit is left out of the record, which
 * is stored, and noted in `_notes` (see norm.ts).
 */

const VALUE_OPS = ['$profile_set', '$profile_set_once', '$profile_increment', '$profile_append']
/** The profile operations, and those that carry values. */
const profileList = (d: Dialect) => d.list(PROFILE_EVENTS.map(literal))
const valueOpList = (d: Dialect) => d.list(VALUE_OPS.map(literal))
/** Computed once per record in norm's projections, read by each property's check. */
const IS_EVENT = '__event'
const IS_VALUE_OP = '__value_op'
/** Transport flags, not properties of a user. */
const NOT_USER_PROPERTIES = new Set(['$debug'])
/** What the SDKs put in every record's xcontext, unset records included: there they name nothing to unset. */
const SDK_PRESETS = new Set(['$lib', '$lib_version', '$platform', '$is_login', '$debug', '$time_calibrated'])
/** A record's xwhat when it is a JSON string (NULL for a line that is not a JSON object). */
const xwhatOf = (d: Dialect) => d.jsonTextString(d.jsonMember('line', 'xwhat'))
/** What a record's keys are judged by: its class ('' for an event, else the operation). */
const classOf = (d: Dialect, xwhat: string) => `CASE WHEN ${xwhat} IS NULL THEN NULL WHEN ${d.includes(profileList(d), xwhat)} THEN ${xwhat} ELSE '' END`
/** A staged line's place, from 0 (its line number: staged in order). */
const lineOf = (d: Dialect) => d.storedOrder('stage_records')
/** The staged records with their place (`__uba_r`, from 0) and class; `head` keeps the first so many lines. */
const records = (d: Dialect, head?: number) =>
  `(SELECT __uba_r, line, ${classOf(d, 'xwhat')} AS cls FROM (SELECT ${lineOf(d)} AS __uba_r, line, ${xwhatOf(d)} AS xwhat FROM stage_records WHERE ${d.notBlank('line')}${head === undefined ? '' : ` AND ${lineOf(d)} < ${head}`}))`
/** Lines whose values a first inference pass reads: the values of most properties are all there. */
const INFERENCE_HEAD = 20_000
/**
 * The class of a record for listing keys. A line holding neither "$profile_" nor an escape cannot
 * be a profile operation: it counts as an event without a parse. It may also be a record without
 * xwhat (rejected): its keys then join the event keys, which changes nothing, since types are
 * inferred from records of the class only and a property no loaded record carries is not added.
 */
const listingClass = (d: Dialect) => `CASE WHEN ${d.contains('line', "'$profile_'")} OR ${d.contains('line', "'\\'")} THEN ${classOf(d, xwhatOf(d))} ELSE '' END`
const classes = (d: Dialect) => ({ event: "cls = ''", valueOp: d.includes(valueOpList(d), 'cls'), unset: "cls = '$profile_unset'" })

export interface KnownTypes {
  event: Map<string, DataType>
  user: Map<string, DataType>
}

const invalidKey = (d: Dialect, k: string) => `length(${k}) > 125 OR NOT ${d.matches(k, "'\\$?[A-Za-z_][A-Za-z0-9_]*'")}`
const keyChecks = (d: Dialect, keys: string) => ({
  tooMany: `${d.length(keys)} > 300`,
  invalid: d.some(keys, (k) => invalidKey(d, k)),
  reserved: d.some(keys, (k) => d.includes(d.list(RESERVED_IDS.map(literal)), `lower(${k})`)),
})

/** The key lists of the records, by class; resolves to whether any list breaks a key rule. */
async function surveyKeys(conn: Warehouse): Promise<boolean> {
  const d = conn.dialect
  await conn.run(d.tempTableAs('rec_keys', `SELECT keys, cls, count(*) AS n
    FROM (SELECT ${d.jsonKeys('line', 'xcontext')} AS keys, ${listingClass(d)} AS cls FROM stage_records WHERE ${d.notBlank('line')})
    ${d.groupByAll(['keys', 'cls'])}`))
  const k = keyChecks(d, 'keys')
  const rows = await conn.rows(`SELECT COALESCE(${d.anyTrue(`${k.tooMany} OR ${k.invalid} OR ${k.reserved}`)}, false) FROM rec_keys WHERE keys IS NOT NULL`)
  return rows[0][0] === true
}

/** The distinct keys the records of a class carry. */
async function keysOf(conn: Warehouse, where: string): Promise<string[]> {
  const rows = await conn.rows(`SELECT DISTINCT ${conn.dialect.unnest('keys')} AS k FROM rec_keys WHERE keys IS NOT NULL AND ${where} ORDER BY k`)
  return rows.map((r) => String(r[0]))
}

/** Groups raw keys by the property id they fold to; keys that cannot be ids are left out here. */
function group(keys: string[]): Map<string, string[]> {
  const byId = new Map<string, string[]>()
  for (const key of keys) {
    const id = propertyIdOf(key)
    if (id === null || RESERVED_IDS.includes(id)) continue
    byId.set(id, [...(byId.get(id) ?? []), key])
  }
  return byId
}

/** The first present values of each id (its raw keys in order, the first one present), as JSON texts; each record parsed once. */
async function valuesOf(conn: Warehouse, ids: [string, string[]][], where: string, head?: number): Promise<Map<string, string[]>> {
  const d = conn.dialect
  const keys = [...new Set(ids.flatMap(([, k]) => k))]
  const at = new Map(keys.map((k, i) => [k, i + 1]))
  const value = (k: string) => d.listItem('x', at.get(k)!)
  const perId = ids.map(([, k]) => (k.length === 1 ? value(k[0]) : `COALESCE(${k.map(value).join(', ')})`))
  const relation = `(SELECT __uba_r, ${d.jsonMembers('line', 'xcontext', keys)} AS x FROM ${records(d, head)} WHERE ${where}) WHERE x IS NOT NULL`
  const texts = await firstValues(conn, `(SELECT * FROM ${relation})`, perId, `v IS NOT NULL AND ${d.jsonKindOf('v')} <> ${d.jsonKindName('null')}`)
  return new Map(ids.map(([id], i) => [id, texts[i]]))
}

/**
 * Types of ids the plan does not know, from their first values in records of the class: one pass
 * over the first lines, and one over the whole file for the ids with too few values there (one
 * query per id cost a scan each, minutes for a file with hundreds of rare keys).
 */
async function inferNew(conn: Warehouse, byId: Map<string, string[]>, known: Map<string, DataType>, where: string): Promise<Map<string, DataType>> {
  const fresh = [...byId].filter(([id]) => !known.has(id))
  if (fresh.length === 0) return new Map()
  const values = await valuesOf(conn, fresh, where, INFERENCE_HEAD)
  const lines = Number((await conn.rows('SELECT count(*) FROM stage_records'))[0][0])
  const short = fresh.filter(([id]) => values.get(id)!.length < INFERENCE_SAMPLE)
  if (lines > INFERENCE_HEAD && short.length > 0) for (const [id, texts] of await valuesOf(conn, short, where)) values.set(id, texts)
  const out = new Map<string, DataType>()
  for (const [id, texts] of values) {
    const type = inferJson(texts)
    if (type) out.set(id, type)
  }
  return out
}

/** A property of a class, with the raw keys it is read from. */
interface Read extends PropertyPlan {
  keys: string[]
}

/** norm's columns for the i-th property read (events first, then users): its JSON text, its value. */
const textCol = (i: number) => `__t${i}`
const valueCol = (i: number) => `__v${i}`

/** The properties of a class; `first` is the index of its first one among all the properties read. */
function propertyPlans(d: Dialect, byId: Map<string, string[]>, known: Map<string, DataType>, inferred: Map<string, DataType>, skip: Set<string>, first: number): Read[] {
  const plans: Read[] = []
  for (const [id, keys] of byId) {
    if (skip.has(id)) continue
    const type = known.get(id) ?? inferred.get(id)
    if (!type) continue
    const text = textCol(first + plans.length)
    plans.push({ id, type, isNew: !known.has(id), keys, read: d.fromJsonText(text, type), rawText: text })
  }
  return plans
}

export interface RecordPlans {
  event: PropertyPlan[]
  user: PropertyPlan[]
  /** User properties that unset records name (each has an "x:<id>" flag column in norm). */
  unset: string[]
}

/** Builds `norm` from `stage_records`; `lenient` (the collector) stores records without the values that do not fit. */
export async function normalizeRecords(conn: Warehouse, known: KnownTypes, lenient = false): Promise<RecordPlans> {
  const CLASS_OF = classes(conn.dialect)
  const keysBroken = await surveyKeys(conn)
  const eventKeys = group(await keysOf(conn, CLASS_OF.event))
  const userKeys = group(await keysOf(conn, CLASS_OF.valueOp))
  const event = propertyPlans(conn.dialect, eventKeys, known.event, await inferNew(conn, eventKeys, known.event, CLASS_OF.event), new Set(), 0)
  const user = propertyPlans(conn.dialect, userKeys, known.user, await inferNew(conn, userKeys, known.user, CLASS_OF.valueOp), NOT_USER_PROPERTIES, event.length)
  // unset names properties; only those the project has (or this load adds) can be unset
  const userIds = new Set([...known.user.keys(), ...user.map((p) => p.id)])
  const unset = [...group(await keysOf(conn, CLASS_OF.unset))].filter(([id]) => userIds.has(id) && !SDK_PRESETS.has(id))
  const localDate = await conn.localDateSql(Number((await conn.rows('SELECT count(*) FROM stage_records'))[0][0]))
  await unordered(conn, () => conn.run(normSql(conn.dialect, event, user, unset, keysBroken, localDate, lenient)))
  return { event, user, unset: unset.map(([id]) => id) }
}

/**
 * The statement that builds `norm`, in projections that each compute a value once: the record
 * parsed into JSON texts (t), the texts (j_*, __t*, and whether each key is there, __f*), the
 * values (__v*), the time, its local day (see localDate.ts), then the columns and the problem.
 */
function normSql(d: Dialect, event: Read[], user: Read[], unset: [string, string[]][], keysBroken: boolean, localDate: (xwhen: string) => string, lenient: boolean): string {
  const props = [...event, ...user]
  const fields = [...new Set([...props.flatMap((p) => p.keys), ...unset.flatMap(([, keys]) => keys), '$debug', '$platform'])]
  const field = (k: string) => d.recordMember('t', 'xcontext', fields.indexOf(k) + 1)
  const top = (name: string) => d.asJsonText(d.recordField('t', name))
  const texts = props.map((p, i) => `, ${d.asJsonText(p.keys.length === 1 ? field(p.keys[0]) : `COALESCE(${p.keys.map(field).join(', ')})`)} AS ${textCol(i)}`)
  const flags = unset.map(([id, keys]) => `, (${keys.map((k) => `${field(k)} IS NOT NULL`).join(' OR ')}) AS ${unsetCol(id)}`)
  const xwhen = `CASE WHEN ${d.jsonTextIsInteger('j_xwhen')} THEN ${d.epochMillisText('j_xwhen')}
                      WHEN xwhen_text IS NOT NULL THEN ${d.eventTime('xwhen_text', false)} END`
  const c = recordChecks(d, event.map((p, i) => ({ p, v: valueCol(i) })), user.map((p, i) => ({ p, v: valueCol(event.length + i) })), lenient)
  // sure: an object whose xcontext is an object (any key read, else asked) or absent, with good keys
  const sure = [
    d.startsWith('j_xwho', `'"'`),
    `(${[...fields.map((_, i) => `__f${i}`), `COALESCE(${d.jsonMemberKind('line', 'xcontext')}, ${d.jsonKindName('null')}) IN (${d.jsonKindName('null')}, ${d.jsonKindName('object')})`].join(' OR ')})`,
    ...(keysBroken ? [`NOT COALESCE(${Object.values(keyChecks(d, keysOfLine(d))).join(' OR ')}, false)`] : []),
  ]
  // a record that is not sure gets the shape checks in their order first. Both CASE and COALESCE
  // evaluate a branch only for the rows that reach it, and a CASE condition stops at the first
  // true OR term: the line is parsed again only for the records no key was read from.
  const problem = `COALESCE(CASE WHEN ${sure.join(' AND ')} THEN NULL ELSE ${problemCase(d, c.shape)} END, ${problemCase(d, c.values)})`
  const notes = lenient ? `, ${notesList(d, c.notes, `CASE WHEN ${sure.join(' AND ')} THEN NULL ELSE ${problemCase(d, c.xcontextNotes)} END`)} AS _notes` : ''
  return d.tempTableAs('norm', `SELECT _row, NOT __event AS is_profile, CASE WHEN NOT __event THEN xwhat END AS op,
           xwho, xwhat, xwhen, ${d.dayOfDate('__date')} AS ds, debug, platform
           ${event.map((p, i) => `, ${kept(d, p, valueCol(i), lenient)} AS ${eventCol(p.id)}`).join('')}
           ${user.map((p, i) => `, ${applicable(p, kept(d, p, valueCol(event.length + i), lenient))} AS ${userCol(p.id)}`).join('')}
           ${unset.map(([id]) => `, ${unsetCol(id)}`).join('')}
           , ${problem} AS _problem ${notes}
    FROM (SELECT *, ${localDate('xwhen')} AS __date
    FROM (SELECT *, ${xwhen} AS xwhen, NOT ${d.includes(profileList(d), 'xwhat')} AS __event, ${d.includes(valueOpList(d), 'xwhat')} AS __value_op
    FROM (SELECT _row, line, j_xwho, j_xwhen ${fields.map((_, i) => `, __f${i}`).join('')},
                 ${d.jsonTextString('j_xwho')} AS xwho, ${d.jsonTextString('j_xwhat')} AS xwhat, ${d.jsonTextString('j_xwhen')} AS xwhen_text,
                 COALESCE(${d.jsonTextIsNumber('j_debug')} AND ${d.tryCast('j_debug', 'number')} = 1, false) AS debug,
                 ${d.jsonTextString('j_platform')} AS platform
                 ${props.map((p, i) => `, ${textCol(i)}, ${p.read.value} AS ${valueCol(i)}`).join('')}
                 ${unset.map(([id]) => `, ${unsetCol(id)}`).join('')}
    FROM (SELECT _row, line, ${top('xwho')} AS j_xwho, ${top('xwhat')} AS j_xwhat, ${top('xwhen')} AS j_xwhen,
                 ${d.asJsonText(field('$debug'))} AS j_debug, ${d.asJsonText(field('$platform'))} AS j_platform
                 ${fields.map((k, i) => `, ${field(k)} IS NOT NULL AS __f${i}`).join('')}
                 ${texts.join('')} ${flags.join('')}
    FROM (SELECT ${lineOf(d)} + 1 AS _row, line, ${d.parseRecord('line', ['xwho', 'xwhat', 'xwhen'], 'xcontext', fields)} AS t FROM stage_records WHERE ${d.notBlank('line')})))))`)
}

/**
 * A value as stored. Read leniently, an array over the limits is left out (a value that does not
 * fit its type reads as NULL already, see the dialect's typed reads); read strictly, such a record is rejected.
 */
function kept(d: Dialect, p: Read, v: string, lenient: boolean): string {
  const limits = lenient && p.type === 'array<string>' ? propertyChecks(d, p, v).slice(1) : []
  return limits.length === 0 ? v : `CASE WHEN ${limits.map((l) => l.when).join(' OR ')} THEN NULL ELSE ${v} END`
}

/** Increment applies to numbers and append to arrays: other values of those records are not applied (nor carried). */
function applicable(p: Read, v: string): string {
  const cannot = [...(p.type === 'number' ? [] : ["'$profile_increment'"]), ...(p.type === 'array<string>' ? [] : ["'$profile_append'"])]
  return `CASE WHEN xwhat IN (${cannot.join(', ')}) THEN NULL ELSE ${v} END`
}

/** A preset ($) property in an increment or append record: the SDKs put them in every record; not applied, not a problem. */
const isPreset = (p: Read) => p.id.startsWith('$')

/** The line's xcontext keys, for the checks of a record that is not sure: a parse per use. */
const keysOfLine = (d: Dialect) => d.jsonKeys('line', 'xcontext')

/**
 * The checks in the order their reasons win: the shape of the record and its identity (`shape`),
 * then the identity and the property values (`values`). The identity checks are in both: they come
 * between shape checks. The values checks are cheap and run for every record; the shape checks
 * parse the line again, and run only for a record that is not sure. Read leniently, the checks of
 * xcontext (`xcontextNotes`, for a record that is not sure) and of the values (`notes`) do not
 * refuse the record: they note what is left out of it.
 */
function recordChecks(d: Dialect, event: { p: Read; v: string }[], user: { p: Read; v: string }[], lenient: boolean) {
  const kind = d.jsonKindOfText('line')
  const xcKind = d.jsonMemberKind('line', 'xcontext')
  const KEYS = keysOfLine(d)
  const k = keyChecks(d, KEYS)
  // read leniently means sent by an SDK (the collector): the SDK's event ids; a file may hold the plan's too
  const identity = identityChecks(d, 'xwho', 'xwhat', 'xwhen', d.jsonString('j_xwhen'), lenient ? 'sdk' : 'plan')
  const properties: Check[] = [
    ...event.flatMap(({ p, v }) => propertyChecks(d, p, v, IS_EVENT)),
    ...user.flatMap(({ p, v }) => propertyChecks(d, p, v, IS_VALUE_OP)),
    ...user.filter(({ p }) => p.type !== 'number' && !isPreset(p)).map(({ p, v }) => ({
      when: `xwhat = '$profile_increment' AND ${v} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not a number property: only numbers can be incremented',
    })),
    ...user.filter(({ p }) => p.type !== 'array<string>' && !isPreset(p)).map(({ p, v }) => ({
      when: `xwhat = '$profile_append' AND ${v} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not an array<string> property: only arrays can be appended to',
    })),
  ]
  const record: Check[] = [
    { when: `${kind} IS NULL`, property: 'record', value: 'line', reason: 'is not valid JSON' },
    { when: `${kind} <> ${d.jsonKindName('object')}`, property: 'record', value: 'line', reason: 'is not a JSON object' },
    { when: `j_xwho IS NOT NULL AND NOT ${d.startsWith('j_xwho', `'"'`)}`, property: 'xwho', value: 'j_xwho', reason: 'must be a string' },
  ]
  const xcontext: Check[] = [
    { when: `${xcKind} IS NOT NULL AND ${xcKind} NOT IN (${d.jsonKindName('object')}, ${d.jsonKindName('null')})`, property: 'xcontext', value: d.jsonMember('line', 'xcontext'), reason: 'must be an object' },
    ...(lenient ? [] : [{ when: k.tooMany, property: 'xcontext', value: d.length(KEYS), reason: 'has more than 300 properties' }]),
    {
      when: k.invalid,
      property: 'xcontext',
      value: d.firstWhere(KEYS, (key) => invalidKey(d, key)),
      reason: 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
    },
    { when: k.reserved, property: 'xcontext', value: d.cast(KEYS, 'string'), reason: 'uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property' },
  ]
  if (lenient) return { shape: [...record, ...identity], values: identity, xcontextNotes: xcontext, notes: properties }
  return { shape: [...record, ...identity, ...xcontext], values: [...identity, ...properties], xcontextNotes: [], notes: [] }
}
