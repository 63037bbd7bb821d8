import type { Warehouse } from '../../warehouse'
import { PROFILE_EVENTS } from '../schema/presets'
import type { DataType } from '../schema/types'
import { firstValues, INFERENCE_SAMPLE, inferJson } from './infer'
import {
  eventCol, identityChecks, notesList, problemCase, propertyChecks, propertyIdOf, RESERVED_IDS, unsetCol, userCol,
  type Check, type PropertyPlan,
} from './norm'
import { literal, unordered } from './sql'
import { dayOfDate, eventTime, fromJsonText, jsonKind } from './typing'

/**
 * SDK records (spec-notes "Data records") from `stage_records` into `norm`. Event records carry
 * event properties; the six profile operations carry user properties.
 *
 * Two passes over the lines. The first lists the property keys each class of record carries (one
 * parse per record, grouped by key list). The second parses each record once (from_json into a
 * struct of every key, each value as JSON text), reads the values by the first character of their
 * text (see `jsonKind`), and checks them. A record whose shape is certainly fine (a JSON object,
 * xcontext an object, no bad key) is judged by the value checks alone; only the others go through
 * the structural checks, which parse their line again: those cost a parse per check, and almost
 * every record passes them.
 *
 * Read leniently (the collector), only a record without a usable identity (xwho, xwhat, xwhen) or
 * that is not a JSON object is refused; a value that does not fit is left out of the record, which
 * is stored, and noted in `_notes` (see norm.ts).
 */

const VALUE_OPS = ['$profile_set', '$profile_set_once', '$profile_increment', '$profile_append']
const PROFILE_LIST = `[${PROFILE_EVENTS.map(literal).join(', ')}]`
const VALUE_OP_LIST = `[${VALUE_OPS.map(literal).join(', ')}]`
/** Computed once per record in norm's projections, read by each property's check. */
const IS_EVENT = '__event'
const IS_VALUE_OP = '__value_op'
/** Transport flags, not properties of a user. */
const NOT_USER_PROPERTIES = new Set(['$debug'])
/** What the SDKs put in every record's xcontext, unset records included: there they name nothing to unset. */
const SDK_PRESETS = new Set(['$lib', '$lib_version', '$platform', '$is_login', '$debug', '$time_calibrated'])
/** A line that holds something: trim() copies the line, so only lines not starting with { pay for it. */
const NOT_BLANK = "CASE WHEN starts_with(line, '{') THEN true ELSE trim(line) <> '' END"
/** A record's xwhat when it is a JSON string (NULL for a line that is not a JSON object). */
const XWHAT = jsonKind.stringValue("CAST(try(line->'$.xwhat') AS VARCHAR)")
/** What a record's keys are judged by: its class ('' for an event, else the operation). */
const classOf = (xwhat: string) => `CASE WHEN ${xwhat} IS NULL THEN NULL WHEN list_contains(${PROFILE_LIST}, ${xwhat}) THEN ${xwhat} ELSE '' END`
/** The staged records with their place (`__uba_r`, from 0) and class; `head` keeps the first so many lines. */
const records = (head?: number) =>
  `(SELECT __uba_r, line, ${classOf('xwhat')} AS cls FROM (SELECT rowid AS __uba_r, line, ${XWHAT} AS xwhat FROM stage_records WHERE ${NOT_BLANK}${head === undefined ? '' : ` AND rowid < ${head}`}))`
/** Lines whose values a first inference pass reads: the values of most properties are all there. */
const INFERENCE_HEAD = 20_000
/**
 * The class of a record for listing keys. A line holding neither "$profile_" nor an escape cannot
 * be a profile operation: it counts as an event without a parse. It may also be a record without
 * xwhat (rejected): its keys then join the event keys, which changes nothing, since types are
 * inferred from records of the class only and a property no loaded record carries is not added.
 */
const LISTING_CLASS = `CASE WHEN contains(line, '$profile_') OR contains(line, '\\') THEN ${classOf(XWHAT)} ELSE '' END`
const CLASS_OF = { event: "cls = ''", valueOp: `list_contains(${VALUE_OP_LIST}, cls)`, unset: "cls = '$profile_unset'" }

export interface KnownTypes {
  event: Map<string, DataType>
  user: Map<string, DataType>
}

const INVALID_KEY = "k -> length(k) > 125 OR NOT regexp_full_match(k, '\\$?[A-Za-z_][A-Za-z0-9_]*')"
const RESERVED = `[${RESERVED_IDS.map(literal).join(', ')}]`
const keyChecks = (keys: string) => ({
  tooMany: `len(${keys}) > 300`,
  invalid: `list_bool_or(list_transform(${keys}, ${INVALID_KEY}))`,
  reserved: `list_bool_or(list_transform(${keys}, k -> list_contains(${RESERVED}, lower(k))))`,
})

/** The key lists of the records, by class; resolves to whether any list breaks a key rule. */
async function surveyKeys(conn: Warehouse): Promise<boolean> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE rec_keys AS
    SELECT keys, cls, count(*) AS n
    FROM (SELECT try(json_keys(line, '$.xcontext')) AS keys, ${LISTING_CLASS} AS cls FROM stage_records WHERE ${NOT_BLANK})
    GROUP BY ALL`)
  const k = keyChecks('keys')
  const rows = await conn.rows(`SELECT COALESCE(bool_or(${k.tooMany} OR ${k.invalid} OR ${k.reserved}), false) FROM rec_keys WHERE keys IS NOT NULL`)
  return rows[0][0] === true
}

/** The distinct keys the records of a class carry. */
async function keysOf(conn: Warehouse, where: string): Promise<string[]> {
  const rows = await conn.rows(`SELECT DISTINCT unnest(keys) AS k FROM rec_keys WHERE keys IS NOT NULL AND ${where} ORDER BY k`)
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
  const keys = [...new Set(ids.flatMap(([, k]) => k))]
  const at = new Map(keys.map((k, i) => [k, i + 1]))
  const value = (k: string) => `x[${at.get(k)}]`
  const perId = ids.map(([, k]) => (k.length === 1 ? value(k[0]) : `COALESCE(${k.map(value).join(', ')})`))
  const paths = keys.map((k) => literal(`$.xcontext."${k}"`)).join(', ')
  const relation = `(SELECT __uba_r, try(json_extract(line, [${paths}])) AS x FROM ${records(head)} WHERE ${where}) WHERE x IS NOT NULL`
  const texts = await firstValues(conn, `(SELECT * FROM ${relation})`, perId, "v IS NOT NULL AND json_type(v) <> 'NULL'")
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
function propertyPlans(byId: Map<string, string[]>, known: Map<string, DataType>, inferred: Map<string, DataType>, skip: Set<string>, first: number): Read[] {
  const plans: Read[] = []
  for (const [id, keys] of byId) {
    if (skip.has(id)) continue
    const type = known.get(id) ?? inferred.get(id)
    if (!type) continue
    const text = textCol(first + plans.length)
    plans.push({ id, type, isNew: !known.has(id), keys, read: fromJsonText(text, type), rawText: text })
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
  const keysBroken = await surveyKeys(conn)
  const eventKeys = group(await keysOf(conn, CLASS_OF.event))
  const userKeys = group(await keysOf(conn, CLASS_OF.valueOp))
  const event = propertyPlans(eventKeys, known.event, await inferNew(conn, eventKeys, known.event, CLASS_OF.event), new Set(), 0)
  const user = propertyPlans(userKeys, known.user, await inferNew(conn, userKeys, known.user, CLASS_OF.valueOp), NOT_USER_PROPERTIES, event.length)
  // unset names properties; only those the project has (or this load adds) can be unset
  const userIds = new Set([...known.user.keys(), ...user.map((p) => p.id)])
  const unset = [...group(await keysOf(conn, CLASS_OF.unset))].filter(([id]) => userIds.has(id) && !SDK_PRESETS.has(id))
  const localDate = await conn.localDateSql(Number((await conn.rows('SELECT count(*) FROM stage_records'))[0][0]))
  await unordered(conn, () => conn.run(normSql(event, user, unset, keysBroken, localDate, lenient)))
  return { event, user, unset: unset.map(([id]) => id) }
}

/**
 * The statement that builds `norm`, in projections that each compute a value once: the record
 * parsed into JSON texts (t), the texts (j_*, __t*, and whether each key is there, __f*), the
 * values (__v*), the time, its local day (see localDate.ts), then the columns and the problem.
 */
function normSql(event: Read[], user: Read[], unset: [string, string[]][], keysBroken: boolean, localDate: (xwhen: string) => string, lenient: boolean): string {
  const props = [...event, ...user]
  const fields = [...new Set([...props.flatMap((p) => p.keys), ...unset.flatMap(([, keys]) => keys), '$debug', '$platform'])]
  const field = (k: string) => `t.xcontext."${k}"`
  const struct = JSON.stringify({ xwho: 'JSON', xwhat: 'JSON', xwhen: 'JSON', xcontext: Object.fromEntries(fields.map((k) => [k, 'JSON'])) })
  const texts = props.map((p, i) => `, CAST(${p.keys.length === 1 ? field(p.keys[0]) : `COALESCE(${p.keys.map(field).join(', ')})`} AS VARCHAR) AS ${textCol(i)}`)
  const flags = unset.map(([id, keys]) => `, (${keys.map((k) => `${field(k)} IS NOT NULL`).join(' OR ')}) AS ${unsetCol(id)}`)
  const xwhen = `CASE WHEN ${jsonKind.integer('j_xwhen')} THEN to_timestamp(TRY_CAST(j_xwhen AS BIGINT) / 1000.0)
                      WHEN xwhen_text IS NOT NULL THEN ${eventTime('xwhen_text', false)} END`
  const c = recordChecks(event.map((p, i) => ({ p, v: valueCol(i) })), user.map((p, i) => ({ p, v: valueCol(event.length + i) })), lenient)
  // sure: an object whose xcontext is an object (any key read, else asked) or absent, with good keys
  const sure = [
    "starts_with(j_xwho, '\"')",
    `(${[...fields.map((_, i) => `__f${i}`), "COALESCE(try(json_type(line, '$.xcontext')), 'NULL') IN ('NULL', 'OBJECT')"].join(' OR ')})`,
    ...(keysBroken ? [`NOT COALESCE(${Object.values(keyChecks(KEYS)).join(' OR ')}, false)`] : []),
  ]
  // a record that is not sure gets the shape checks in their order first. Both CASE and COALESCE
  // evaluate a branch only for the rows that reach it, and a CASE condition stops at the first
  // true OR term: the line is parsed again only for the records no key was read from.
  const problem = `COALESCE(CASE WHEN ${sure.join(' AND ')} THEN NULL ELSE ${problemCase(c.shape)} END, ${problemCase(c.values)})`
  const notes = lenient ? `, ${notesList(c.notes, `CASE WHEN ${sure.join(' AND ')} THEN NULL ELSE ${problemCase(c.xcontextNotes)} END`)} AS _notes` : ''
  return `CREATE OR REPLACE TEMP TABLE norm AS
    SELECT _row, NOT __event AS is_profile, CASE WHEN NOT __event THEN xwhat END AS op,
           xwho, xwhat, xwhen, ${dayOfDate('__date')} AS ds, debug, platform
           ${event.map((p, i) => `, ${kept(p, valueCol(i), lenient)} AS ${eventCol(p.id)}`).join('')}
           ${user.map((p, i) => `, ${applicable(p, kept(p, valueCol(event.length + i), lenient))} AS ${userCol(p.id)}`).join('')}
           ${unset.map(([id]) => `, ${unsetCol(id)}`).join('')}
           , ${problem} AS _problem ${notes}
    FROM (SELECT *, ${localDate('xwhen')} AS __date
    FROM (SELECT *, ${xwhen} AS xwhen, NOT list_contains(${PROFILE_LIST}, xwhat) AS __event, list_contains(${VALUE_OP_LIST}, xwhat) AS __value_op
    FROM (SELECT _row, line, j_xwho, j_xwhen ${fields.map((_, i) => `, __f${i}`).join('')},
                 ${jsonKind.stringValue('j_xwho')} AS xwho, ${jsonKind.stringValue('j_xwhat')} AS xwhat, ${jsonKind.stringValue('j_xwhen')} AS xwhen_text,
                 COALESCE(${jsonKind.number('j_debug')} AND TRY_CAST(j_debug AS DOUBLE) = 1, false) AS debug,
                 ${jsonKind.stringValue('j_platform')} AS platform
                 ${props.map((p, i) => `, ${textCol(i)}, ${p.read.value} AS ${valueCol(i)}`).join('')}
                 ${unset.map(([id]) => `, ${unsetCol(id)}`).join('')}
    FROM (SELECT _row, line, CAST(t.xwho AS VARCHAR) AS j_xwho, CAST(t.xwhat AS VARCHAR) AS j_xwhat, CAST(t.xwhen AS VARCHAR) AS j_xwhen,
                 CAST(${field('$debug')} AS VARCHAR) AS j_debug, CAST(${field('$platform')} AS VARCHAR) AS j_platform
                 ${fields.map((k, i) => `, ${field(k)} IS NOT NULL AS __f${i}`).join('')}
                 ${texts.join('')} ${flags.join('')}
    FROM (SELECT rowid + 1 AS _row, line, try(from_json(line, ${literal(struct)})) AS t FROM stage_records WHERE ${NOT_BLANK})))))`
}

/**
 * A value as stored. Read leniently, an array over the limits is left out (a value that does not
 * fit its type reads as NULL already, see typing.ts); read strictly, such a record is rejected.
 */
function kept(p: Read, v: string, lenient: boolean): string {
  const limits = lenient && p.type === 'array<string>' ? propertyChecks(p, v).slice(1) : []
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
const KEYS = "try(json_keys(line, '$.xcontext'))"

/**
 * The checks in the order their reasons win: the shape of the record and its identity (`shape`),
 * then the identity and the property values (`values`). The identity checks are in both: they come
 * between shape checks. The values checks are cheap and run for every record; the shape checks
 * parse the line again, and run only for a record that is not sure. Read leniently, the checks of
 * xcontext (`xcontextNotes`, for a record that is not sure) and of the values (`notes`) do not
 * refuse the record: they note what is left out of it.
 */
function recordChecks(event: { p: Read; v: string }[], user: { p: Read; v: string }[], lenient: boolean) {
  const kind = 'json_type(TRY_CAST(line AS JSON))'
  const xcKind = "try(json_type(line, '$.xcontext'))"
  const k = keyChecks(KEYS)
  // read leniently means sent by an SDK (the collector): the SDK's event ids; a file may hold the plan's too
  const identity = identityChecks('xwho', 'xwhat', 'xwhen', "CAST(j_xwhen AS JSON)->>'$'", lenient ? 'sdk' : 'plan')
  const properties: Check[] = [
    ...event.flatMap(({ p, v }) => propertyChecks(p, v, IS_EVENT)),
    ...user.flatMap(({ p, v }) => propertyChecks(p, v, IS_VALUE_OP)),
    ...user.filter(({ p }) => p.type !== 'number' && !isPreset(p)).map(({ p, v }) => ({
      when: `xwhat = '$profile_increment' AND ${v} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not a number property: only numbers can be incremented',
    })),
    ...user.filter(({ p }) => p.type !== 'array<string>' && !isPreset(p)).map(({ p, v }) => ({
      when: `xwhat = '$profile_append' AND ${v} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not an array<string> property: only arrays can be appended to',
    })),
  ]
  const record: Check[] = [
    { when: `${kind} IS NULL`, property: 'record', value: 'line', reason: 'is not valid JSON' },
    { when: `${kind} <> 'OBJECT'`, property: 'record', value: 'line', reason: 'is not a JSON object' },
    { when: "j_xwho IS NOT NULL AND NOT starts_with(j_xwho, '\"')", property: 'xwho', value: 'j_xwho', reason: 'must be a string' },
  ]
  const xcontext: Check[] = [
    { when: `${xcKind} IS NOT NULL AND ${xcKind} NOT IN ('OBJECT', 'NULL')`, property: 'xcontext', value: "CAST(try(line->'$.xcontext') AS VARCHAR)", reason: 'must be an object' },
    ...(lenient ? [] : [{ when: k.tooMany, property: 'xcontext', value: `len(${KEYS})`, reason: 'has more than 300 properties' }]),
    {
      when: k.invalid,
      property: 'xcontext',
      value: `list_filter(${KEYS}, ${INVALID_KEY})[1]`,
      reason: 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
    },
    { when: k.reserved, property: 'xcontext', value: `CAST(${KEYS} AS VARCHAR)`, reason: 'uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property' },
  ]
  if (lenient) return { shape: [...record, ...identity], values: identity, xcontextNotes: xcontext, notes: properties }
  return { shape: [...record, ...identity, ...xcontext], values: [...identity, ...properties], xcontextNotes: [], notes: [] }
}
