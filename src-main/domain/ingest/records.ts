import type { DuckDBConnection } from '@duckdb/node-api'
import { PROFILE_EVENTS } from '../schema/presets'
import type { DataType } from '../schema/types'
import { inferJson, sampleValues } from './infer'
import {
  eventCol, identityChecks, problemCase, propertyChecks, propertyIdOf, RESERVED_IDS, unsetCol, userCol,
  type Check, type PropertyPlan,
} from './norm'
import { literal } from './sql'
import { dayOf, eventTime, fromJson } from './typing'

/**
 * SDK records (spec-notes "Data records") from `stage_records` into `norm`. Event records carry
 * event properties; the six profile operations carry user properties. Each record's JSON is
 * parsed once into a struct (from_json): reading JSON text again per property would cost a
 * parse per property per record.
 */

const VALUE_OPS = ['$profile_set', '$profile_set_once', '$profile_increment', '$profile_append']
const PROFILE_LIST = `[${PROFILE_EVENTS.map(literal).join(', ')}]`
const VALUE_OP_LIST = `[${VALUE_OPS.map(literal).join(', ')}]`
const IS_EVENT = `NOT list_contains(${PROFILE_LIST}, xwhat)`
const IS_VALUE_OP = `list_contains(${VALUE_OP_LIST}, xwhat)`
const IS_UNSET = "xwhat = '$profile_unset'"
/** Transport flags, not properties of a user. */
const NOT_USER_PROPERTIES = new Set(['$debug'])
const TOP = JSON.stringify({ appid: 'JSON', xwho: 'JSON', xwhat: 'JSON', xwhen: 'JSON', xcontext: 'JSON' })

export interface KnownTypes {
  event: Map<string, DataType>
  user: Map<string, DataType>
}

/** Parses each staged line once: validity, the top-level fields, the property keys. */
async function parse(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE rec AS
    SELECT _row, line, j_kind,
           CASE WHEN json_type(t.xwho) = 'VARCHAR' THEN t.xwho->>'$' END AS xwho,
           json_type(t.xwho) AS xwho_kind,
           CAST(t.xwho AS VARCHAR) AS xwho_raw,
           CASE WHEN json_type(t.xwhat) = 'VARCHAR' THEN t.xwhat->>'$' END AS xwhat,
           t.xwhen->>'$' AS xwhen_raw,
           json_type(t.xwhen) AS xwhen_kind,
           t.xcontext AS xc,
           json_type(t.xcontext) AS xc_kind,
           CASE WHEN json_type(t.xcontext) = 'OBJECT' THEN json_keys(t.xcontext) END AS keys
    FROM (SELECT _row, line, json_type(j) AS j_kind,
                 CASE WHEN json_type(j) = 'OBJECT' THEN from_json(j, ${literal(TOP)}) END AS t
          FROM (SELECT rowid + 1 AS _row, line, TRY_CAST(line AS JSON) AS j FROM stage_records WHERE trim(line) <> ''))`)
}

/** The distinct keys the records of a class carry. */
async function keysOf(conn: DuckDBConnection, where: string): Promise<string[]> {
  const reader = await conn.runAndReadAll(`SELECT DISTINCT unnest(keys) AS k FROM rec WHERE keys IS NOT NULL AND ${where} ORDER BY k`)
  return reader.getRows().map((r) => String(r[0]))
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

/** Types of ids the plan does not know, from their first values in records of the class. */
async function inferNew(conn: DuckDBConnection, byId: Map<string, string[]>, known: Map<string, DataType>, where: string): Promise<Map<string, DataType>> {
  const out = new Map<string, DataType>()
  for (const [id, keys] of byId) {
    if (known.has(id)) continue
    const values = keys.map((k) => `xc->${literal(`$."${k}"`)}`)
    const value = values.length === 1 ? values[0] : `COALESCE(${values.join(', ')})`
    const texts = await sampleValues(conn, 'rec', value, `keys IS NOT NULL AND ${where} AND json_type(${value}) IS NOT NULL AND json_type(${value}) <> 'NULL'`)
    const type = inferJson(texts)
    if (type) out.set(id, type)
  }
  return out
}

/** How each property is read from `v`, the struct of a record's xcontext. */
function propertyPlans(byId: Map<string, string[]>, known: Map<string, DataType>, inferred: Map<string, DataType>, skip: Set<string>): PropertyPlan[] {
  const plans: PropertyPlan[] = []
  for (const [id, keys] of byId) {
    if (skip.has(id)) continue
    const type = known.get(id) ?? inferred.get(id)
    if (!type) continue
    const fields = keys.map((k) => `v."${k}"`)
    const json = fields.length === 1 ? fields[0] : `COALESCE(${fields.join(', ')})`
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

const INVALID_KEY = "k -> length(k) > 125 OR NOT regexp_full_match(k, '\\$?[A-Za-z_][A-Za-z0-9_]*')"

function recordChecks(plans: RecordPlans): Check[] {
  const reserved = `[${RESERVED_IDS.map(literal).join(', ')}]`
  return [
    { when: 'j_kind IS NULL', property: 'record', value: 'line', reason: 'is not valid JSON' },
    { when: "j_kind <> 'OBJECT'", property: 'record', value: 'line', reason: 'is not a JSON object' },
    { when: "xwho_kind IS NOT NULL AND xwho_kind <> 'VARCHAR'", property: 'xwho', value: 'xwho_raw', reason: 'must be a string' },
    ...identityChecks('xwho', 'xwhat', 'xwhen', 'xwhen_raw'),
    { when: "xc_kind IS NOT NULL AND xc_kind NOT IN ('OBJECT', 'NULL')", property: 'xcontext', value: 'CAST(xc AS VARCHAR)', reason: 'must be an object' },
    { when: 'len(keys) > 300', property: 'xcontext', value: 'len(keys)', reason: 'has more than 300 properties' },
    {
      when: `list_bool_or(list_transform(keys, ${INVALID_KEY}))`,
      property: 'xcontext',
      value: `list_filter(keys, ${INVALID_KEY})[1]`,
      reason: 'has a property id that is not letters, digits and _ (optionally after $) or is longer than 125 characters',
    },
    {
      when: `list_bool_or(list_transform(keys, k -> list_contains(${reserved}, lower(k))))`,
      property: 'xcontext',
      value: 'CAST(keys AS VARCHAR)',
      reason: 'uses a reserved id (distinct_id, xwho, xwhat, xwhen, ds) as a property',
    },
    ...plans.event.flatMap((p) => propertyChecks(p, IS_EVENT)),
    ...plans.user.flatMap((p) => propertyChecks(p, IS_VALUE_OP)),
    ...plans.user.filter((p) => p.type !== 'number').map((p) => ({
      when: `xwhat = '$profile_increment' AND ${p.read.value} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not a number property: only numbers can be incremented',
    })),
    ...plans.user.filter((p) => p.type !== 'array<string>').map((p) => ({
      when: `xwhat = '$profile_append' AND ${p.read.value} IS NOT NULL`, property: p.id, value: p.rawText, reason: 'is not an array<string> property: only arrays can be appended to',
    })),
  ]
}

/** Builds `norm` from `stage_records`. */
export async function normalizeRecords(conn: DuckDBConnection, known: KnownTypes): Promise<RecordPlans> {
  await parse(conn)
  const eventKeys = group(await keysOf(conn, IS_EVENT))
  const userKeys = group(await keysOf(conn, IS_VALUE_OP))
  const plans: RecordPlans = {
    event: propertyPlans(eventKeys, known.event, await inferNew(conn, eventKeys, known.event, IS_EVENT), new Set()),
    user: propertyPlans(userKeys, known.user, await inferNew(conn, userKeys, known.user, IS_VALUE_OP), NOT_USER_PROPERTIES),
    unset: [],
  }
  // unset names properties; only those the project has (or this load adds) can be unset
  const userIds = new Set([...known.user.keys(), ...plans.user.map((p) => p.id)])
  const unsetKeys = [...group(await keysOf(conn, IS_UNSET))].filter(([id]) => userIds.has(id) && !NOT_USER_PROPERTIES.has(id))
  plans.unset = unsetKeys.map(([id]) => id)

  // every key any plan reads, once, in one struct per record
  const structKeys = new Set([...plans.event, ...plans.user].flatMap((p) => (eventKeys.get(p.id) ?? []).concat(userKeys.get(p.id) ?? [])))
  for (const [, keys] of unsetKeys) for (const k of keys) structKeys.add(k)
  structKeys.add('$debug')
  structKeys.add('$platform')
  const struct = JSON.stringify(Object.fromEntries([...structKeys].map((k) => [k, 'JSON'])))
  const xwhen = `CASE WHEN xwhen_kind IN ('UBIGINT', 'BIGINT') THEN to_timestamp(CAST(xwhen_raw AS BIGINT) / 1000.0)
                      WHEN xwhen_kind = 'VARCHAR' THEN ${eventTime('xwhen_raw')} END`
  await conn.run(`CREATE OR REPLACE TEMP TABLE norm AS
    SELECT _row, NOT ${IS_EVENT} AS is_profile, CASE WHEN NOT ${IS_EVENT} THEN xwhat END AS op,
           xwho, xwhat, xwhen, ${dayOf('xwhen')} AS ds,
           COALESCE(json_type(v."$debug") IN ('UBIGINT', 'BIGINT', 'DOUBLE') AND CAST(v."$debug" AS DOUBLE) = 1, false) AS debug,
           CASE WHEN json_type(v."$platform") = 'VARCHAR' THEN v."$platform"->>'$' END AS platform
           ${plans.event.map((p) => `, ${p.read.value} AS ${eventCol(p.id)}`).join('')}
           ${plans.user.map((p) => `, ${p.read.value} AS ${userCol(p.id)}`).join('')}
           ${unsetKeys.map(([id, keys]) => `, (${keys.map((k) => `v."${k}" IS NOT NULL`).join(' OR ')}) AS ${unsetCol(id)}`).join('')}
           , ${problemCase(recordChecks(plans))} AS _problem
    FROM (SELECT *, ${xwhen} AS xwhen, CASE WHEN xc_kind = 'OBJECT' THEN from_json(xc, ${literal(struct)}) END AS v
          FROM rec)`)
  return plans
}
