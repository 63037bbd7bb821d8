import type { DuckDBConnection } from '@duckdb/node-api'
import { PROFILE_EVENTS } from '../schema/presets'
import type { DataType } from '../schema/types'
import {
  eventCol, identityChecks, problemCase, propertyChecks, propertyIdOf, RESERVED_IDS, unsetCol, userCol,
  type Check, type PropertyPlan,
} from './norm'
import { literal } from './sql'
import { dayOf, eventTime, fromJson, INFERENCE_ORDER } from './typing'

/**
 * SDK records (spec-notes "Data records") from `stage_records` into `norm`. Event records carry
 * event properties; the six profile operations carry user properties.
 */

const VALUE_OPS = ['$profile_set', '$profile_set_once', '$profile_increment', '$profile_append']
const PROFILE_LIST = `[${PROFILE_EVENTS.map(literal).join(', ')}]`
const VALUE_OP_LIST = `[${VALUE_OPS.map(literal).join(', ')}]`
/** Transport flags, not properties of a user. */
const NOT_USER_PROPERTIES = new Set(['$debug'])

export interface KnownTypes {
  event: Map<string, DataType>
  user: Map<string, DataType>
}

/** Parses each staged line once. */
async function parse(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE rec AS
    SELECT _row, line, j,
           json_type(j) AS j_kind,
           CASE WHEN json_type(j, '$.xwho') = 'VARCHAR' THEN j->>'$.xwho' END AS xwho,
           json_type(j, '$.xwho') AS xwho_kind,
           CASE WHEN json_type(j, '$.xwhat') = 'VARCHAR' THEN j->>'$.xwhat' END AS xwhat,
           j->>'$.xwhen' AS xwhen_raw,
           json_type(j, '$.xwhen') AS xwhen_kind,
           j->'$.xcontext' AS xc,
           json_type(j, '$.xcontext') AS xc_kind
    FROM (SELECT _row, line, TRY_CAST(line AS JSON) AS j FROM stage_records)`)
}

type Structure = Record<string, unknown>

/** Key -> merged JSON type over all records of a class, in one pass (json_group_structure). */
async function structures(conn: DuckDBConnection): Promise<{ event: Structure; user: Structure; unset: Structure }> {
  // json_group_structure is a macro (no FILTER clause): one sub-select per class of record
  const of = (where: string) => `(SELECT json_group_structure(xc) FROM rec WHERE xc_kind = 'OBJECT' AND ${where})`
  const reader = await conn.runAndReadAll(`SELECT
      ${of(`NOT list_contains(${PROFILE_LIST}, xwhat)`)} AS ev,
      ${of(`list_contains(${VALUE_OP_LIST}, xwhat)`)} AS up,
      ${of("xwhat = '$profile_unset'")} AS un`)
  const row = reader.getRowObjectsJS()[0] as { ev: string | null; up: string | null; un: string | null }
  const parseStructure = (s: string | null): Structure => {
    const v = s ? JSON.parse(s) : {}
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Structure) : {}
  }
  return { event: parseStructure(row.ev), user: parseStructure(row.up), unset: parseStructure(row.un) }
}

/** The type a merged JSON structure entry stands for, or 'unsure' when values disagree. */
function typeOfStructure(s: unknown): DataType | 'unsure' | null {
  if (s === 'NULL') return null
  if (s === 'VARCHAR') return 'unsure' // a string or a datetime: the values decide
  if (s === 'BOOLEAN') return 'boolean'
  if (s === 'UBIGINT' || s === 'BIGINT' || s === 'DOUBLE') return 'number'
  if (Array.isArray(s) && (s[0] === 'VARCHAR' || s[0] === 'NULL')) return 'array<string>'
  return 'unsure'
}

/**
 * Types of keys the plan does not know, "on first sight": every present value decides together,
 * or, when they disagree, the first record's value does (the others are then rejected).
 */
async function inferNew(conn: DuckDBConnection, keys: { key: string; filter: string; hint: DataType | 'unsure' }[]): Promise<Map<string, DataType>> {
  const out = new Map<string, DataType>()
  const unsure = keys.filter((k) => k.hint === 'unsure')
  for (const k of keys) if (k.hint !== 'unsure') out.set(k.key, k.hint)
  if (unsure.length === 0) return out
  const selects = unsure.flatMap((k, i) => {
    const json = `(xc->${literal(`$."${k.key}"`)})`
    const present = `json_type(${json}) IS NOT NULL AND json_type(${json}) <> 'NULL'`
    return INFERENCE_ORDER.map((t, ti) => {
      const read = fromJson(json, t)
      return `count(*) FILTER (WHERE ${k.filter} AND ${present} AND ${read.misfit}) AS "m${i}_${ti}"`
    }).concat(`arg_min(json_type(${json}), _row) FILTER (WHERE ${k.filter} AND ${present}) AS "f${i}"`, `arg_min(${json}, _row) FILTER (WHERE ${k.filter} AND ${present}) AS "v${i}"`)
  })
  const row = (await conn.runAndReadAll(`SELECT ${selects.join(', ')} FROM rec WHERE xc_kind = 'OBJECT'`)).getRowObjectsJS()[0]
  unsure.forEach((k, i) => {
    const fitsAll = INFERENCE_ORDER.find((_, ti) => Number(row[`m${i}_${ti}`]) === 0)
    if (fitsAll) return out.set(k.key, fitsAll)
    const first = String(row[`f${i}`])
    const firstValue = row[`v${i}`]
    if (first === 'BOOLEAN') out.set(k.key, 'boolean')
    else if (['UBIGINT', 'BIGINT', 'DOUBLE'].includes(first)) out.set(k.key, 'number')
    else if (first === 'ARRAY') out.set(k.key, 'array<string>')
    else if (first === 'VARCHAR') out.set(k.key, /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,3})?)?$/.test(String(JSON.parse(String(firstValue)))) ? 'datetime' : 'string')
  })
  return out
}

/** Groups raw keys by the property id they fold to; keys that cannot be ids are left out here. */
function group(structure: Structure): Map<string, string[]> {
  const byId = new Map<string, string[]>()
  for (const key of Object.keys(structure)) {
    const id = propertyIdOf(key)
    if (id === null || RESERVED_IDS.includes(id)) continue
    byId.set(id, [...(byId.get(id) ?? []), key])
  }
  return byId
}

function propertyPlans(byId: Map<string, string[]>, known: Map<string, DataType>, inferred: Map<string, DataType>, skip: Set<string>): PropertyPlan[] {
  const plans: PropertyPlan[] = []
  for (const [id, keys] of byId) {
    if (skip.has(id)) continue
    const type = known.get(id) ?? inferred.get(keys[0])
    if (!type) continue
    const json = keys.length === 1 ? `(xc->${literal(`$."${keys[0]}"`)})` : `COALESCE(${keys.map((k) => `xc->${literal(`$."${k}"`)}`).join(', ')})`
    plans.push({ id, type, isNew: !known.has(id), read: fromJson(json, type), rawText: `CAST(${json} AS VARCHAR)` })
  }
  return plans
}

export interface RecordPlans {
  event: PropertyPlan[]
  user: PropertyPlan[]
  /** User properties that unset records name (each has an "x:<id>" flag column in norm). */
  unset: string[]
}

/** Builds `norm` from `stage_records`. */
export async function normalizeRecords(conn: DuckDBConnection, known: KnownTypes): Promise<RecordPlans> {
  await parse(conn)
  const s = await structures(conn)
  const eventKeys = group(s.event)
  const userKeys = group(s.user)
  const hints = (byId: Map<string, string[]>, structure: Structure, knownTypes: Map<string, DataType>, filter: string) =>
    [...byId].filter(([id]) => !knownTypes.has(id)).flatMap(([, keys]) => {
      const hint = typeOfStructure(structure[keys[0]])
      return hint === null ? [] : [{ key: keys[0], filter, hint }]
    })
  const inferredEvent = await inferNew(conn, hints(eventKeys, s.event, known.event, `NOT list_contains(${PROFILE_LIST}, xwhat)`))
  const inferredUser = await inferNew(conn, hints(userKeys, s.user, known.user, `list_contains(${VALUE_OP_LIST}, xwhat)`))
  const plans: RecordPlans = {
    event: propertyPlans(eventKeys, known.event, inferredEvent, new Set()),
    user: propertyPlans(userKeys, known.user, inferredUser, NOT_USER_PROPERTIES),
    unset: [],
  }

  const isProfile = `list_contains(${PROFILE_LIST}, xwhat)`
  const xwhen = `CASE WHEN xwhen_kind IN ('UBIGINT', 'BIGINT') THEN to_timestamp(CAST(xwhen_raw AS BIGINT) / 1000.0)
                      WHEN xwhen_kind = 'VARCHAR' THEN ${eventTime('xwhen_raw')} END`
  const checks: Check[] = [
    { when: 'j IS NULL', property: 'record', value: 'line', reason: 'is not valid JSON' },
    { when: "j_kind <> 'OBJECT'", property: 'record', value: 'line', reason: 'is not a JSON object' },
    { when: "xwho_kind IS NOT NULL AND xwho_kind <> 'VARCHAR'", property: 'xwho', value: "j->>'$.xwho'", reason: 'must be a string' },
    ...identityChecks('xwho', 'xwhat', 'xwhen', 'xwhen_raw'),
    { when: "xc_kind IS NOT NULL AND xc_kind NOT IN ('OBJECT', 'NULL')", property: 'xcontext', value: 'CAST(xc AS VARCHAR)', reason: 'must be an object' },
    { when: "xc_kind = 'OBJECT' AND len(json_keys(xc)) > 300", property: 'xcontext', value: 'len(json_keys(xc))', reason: 'has more than 300 properties' },
    {
      when: "xc_kind = 'OBJECT' AND list_bool_or(list_transform(json_keys(xc), k -> length(k) > 125 OR NOT regexp_full_match(k, '\\$?[A-Za-z_][A-Za-z0-9_]*')))",
      property: 'xcontext',
      value: "list_filter(json_keys(xc), k -> length(k) > 125 OR NOT regexp_full_match(k, '\\$?[A-Za-z_][A-Za-z0-9_]*'))[1]",
      reason: 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
    },
    {
      when: `xc_kind = 'OBJECT' AND list_bool_or(list_transform(json_keys(xc), k -> list_contains(${`[${RESERVED_IDS.map(literal).join(', ')}]`}, lower(k))))`,
      property: 'xcontext',
      value: 'CAST(json_keys(xc) AS VARCHAR)',
      reason: 'uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property',
    },
    ...plans.event.flatMap((p) => propertyChecks(p, `NOT ${isProfile}`)),
    ...plans.user.flatMap((p) => propertyChecks(p, `list_contains(${VALUE_OP_LIST}, xwhat)`)),
    ...plans.user.filter((p) => p.type !== 'number').map((p) => ({
      when: `xwhat = '$profile_increment' AND NOT (${p.read.value} IS NULL)`, property: p.id, value: p.rawText, reason: 'is not a number property: only numbers can be incremented',
    })),
    ...plans.user.filter((p) => p.type !== 'array<string>').map((p) => ({
      when: `xwhat = '$profile_append' AND NOT (${p.read.value} IS NULL)`, property: p.id, value: p.rawText, reason: 'is not an array<string> property: only arrays can be appended to',
    })),
  ]
  // unset names properties; only those the project has (or this load adds) can be unset
  const userIds = new Set([...known.user.keys(), ...plans.user.map((p) => p.id)])
  const unsetIds = [...group(s.unset)].filter(([id]) => userIds.has(id) && !NOT_USER_PROPERTIES.has(id))
  plans.unset = unsetIds.map(([id]) => id)
  await conn.run(`CREATE OR REPLACE TEMP TABLE norm AS
    SELECT _row, ${isProfile} AS is_profile, CASE WHEN ${isProfile} THEN xwhat END AS op,
           xwho, xwhat, xwhen, ${dayOf('xwhen')} AS ds,
           COALESCE(json_type(xc, '$."$debug"') IN ('UBIGINT', 'BIGINT', 'DOUBLE') AND CAST(xc->'$."$debug"' AS DOUBLE) = 1, false) AS debug,
           CASE WHEN json_type(xc, '$."$platform"') = 'VARCHAR' THEN xc->>'$."$platform"' END AS platform
           ${plans.event.map((p) => `, ${p.read.value} AS ${eventCol(p.id)}`).join('')}
           ${plans.user.map((p) => `, ${p.read.value} AS ${userCol(p.id)}`).join('')}
           ${unsetIds.map(([id, keys]) => `, (${keys.map((k) => `json_type(xc, ${literal(`$."${k}"`)}) IS NOT NULL`).join(' OR ')}) AS ${unsetCol(id)}`).join('')}
           , ${problemCase(checks)} AS _problem
    FROM (SELECT *, ${xwhen} AS xwhen FROM rec)`)
  return plans
}
