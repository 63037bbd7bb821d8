import { addDays, dsOf } from '../time/calendar'
import { eventSql } from '../expr/eventRefs'
import { conditionSql, filterSql, needsProfile, type Columns } from '../expr/filterSql'
import type { Dialect, SqlParams } from '../../warehouse/dialect'
import { USERS } from '../ingest/identity'
import type { CheckedContent, EventRule, EventWindow, Rule } from './rules'

/**
 * Checked rule content to SQL, on the expression compiler of the analyses (eventRefs, filterSql).
 * The users are those of `user_ids` (everyone with an event or a profile), each once (USERS: a
 * user merged by `$alias` is named by its login id), read as `e` so that
 * the shared property SQL finds `e.xwho` and `e.distinct_id`; profiles join as `u`. Each event
 * rule is one aggregate over event_vd per user (a CTE), joined by user: a user without a matching
 * event counts 0. A rule that cannot decide (a missing value) does not match, so NOT (AND_NOT)
 * only ever negates true or false.
 */

export interface RuleEnvSql {
  dialect: Dialect
  columns: Columns
  /** The current local time of the project, as SQL (relative-time operators). */
  nowLocal: string
  /** Today in the project's time zone, yyyy-MM-dd (relative event windows). */
  today: string
}

export interface ContentSql {
  /** Named subqueries to put in the statement's WITH. */
  ctes: string[]
  /** LEFT JOINs onto the users `e`. */
  joins: string[]
  /** Whether `profile_vd u` must be joined. */
  profile: boolean
  /** True for the users the content selects. */
  condition: string
}

/** The days of a window as [from, to] yyyy-MM-dd. */
export function windowDays(window: EventWindow, today: string): [string, string] {
  if (window.kind === 'absolute') return [window.from, window.to]
  return [addDays(today, -window.from), addDays(today, -window.to)]
}

function countSql(rule: EventRule, col: string, p: SqlParams): string {
  const v = rule.params
  switch (rule.function) {
    case 'EQ':
      return `${col} IN (${p.list(v)})`
    case 'NOT_EQ':
      return `${col} NOT IN (${p.list(v)})`
    case 'GT':
      return `${col} > ${p.add(v[0])}`
    case 'GTE':
      return `${col} >= ${p.add(v[0])}`
    case 'LT':
      return `${col} < ${p.add(v[0])}`
    case 'LTE':
      return `${col} <= ${p.add(v[0])}`
    case 'RANGE':
      return `${col} BETWEEN ${p.add(v[0])} AND ${p.add(v[1])}`
    default:
      throw new Error(`no count comparison for ${rule.function}`)
  }
}

function eventCte(rule: EventRule, name: string, env: RuleEnvSql, p: SqlParams): string {
  const [from, to] = windowDays(rule.window, env.today)
  const profile = needsProfile(rule.filter) || rule.event.members.some((m) => needsProfile(m.filter))
  const measure = rule.property ? `count(DISTINCT ${env.dialect.columnOf(rule.property.column)})` : 'count(*)'
  return `${name} AS (
      SELECT e.distinct_id, ${measure} AS n
      FROM event_vd e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      WHERE e.ds BETWEEN ${p.add(dsOf(from))} AND ${p.add(dsOf(to))}
        AND ${eventSql(rule.event, env, p)}
        AND ${filterSql(rule.filter, env, p)}
      GROUP BY e.distinct_id)`
}

/**
 * The SQL of one content. `prefix` names its CTEs (a tag compiles several contents into one
 * statement); it must be a plain identifier part.
 */
export function contentSql(content: CheckedContent, prefix: string, env: RuleEnvSql, p: SqlParams): ContentSql {
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new Error(`not an identifier prefix: ${prefix}`)
  const ctes: string[] = []
  const joins: string[] = []
  let profile = false
  const ruleSql = (rule: Rule, g: number, r: number): string => {
    if (rule.type === 'user') {
      profile ||= needsProfile({ conditions: [rule.condition], relation: 'AND' })
      return `COALESCE(${conditionSql(rule.condition, env, p)}, false)`
    }
    const name = `${prefix}_g${g}_r${r}`
    ctes.push(eventCte(rule, name, env, p))
    joins.push(`LEFT JOIN ${name} ON ${name}.distinct_id = e.distinct_id`)
    return countSql(rule, `COALESCE(${name}.n, 0)`, p)
  }
  const groups = content.groups.map((group, g) => `(${group.rules.map((rule, r) => `(${ruleSql(rule, g, r)})`).join(group.relation === 'OR' ? ' OR ' : ' AND ')})`)
  let condition = groups[0]
  content.between.forEach((relation, i) => {
    condition = `(${condition} AND ${relation === 'AND_NOT' ? 'NOT ' : ''}${groups[i + 1]})`
  })
  return { ctes, joins, profile, condition }
}

/** The FROM of a statement over every user, with the joins of some contents. */
export function usersFrom(parts: ContentSql[]): string {
  const profile = parts.some((c) => c.profile)
  return `${USERS} e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      ${parts.flatMap((c) => c.joins).join('\n      ')}`
}

/** The members of one cohort rule content: (distinct_id, xwho). */
export function membersSql(content: CheckedContent, env: RuleEnvSql, p: SqlParams): string {
  const part = contentSql(content, 'r', env, p)
  return `${part.ctes.length > 0 ? `WITH ${part.ctes.join(',\n    ')}` : ''}
    SELECT e.distinct_id, e.xwho
    FROM ${usersFrom([part])}
    WHERE ${part.condition}`
}
