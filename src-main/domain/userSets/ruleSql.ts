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
 * rule compares a per-user count (0 for a user without a matching event) and is written as a
 * membership test of the users whose count decides it (below), so a statement has one JOIN at
 * most (the profile's) and no named subqueries: the same text runs on DuckDB and ClickHouse 18.16.
 * A rule that cannot decide (a missing value) does not match, so NOT (AND_NOT) only ever negates
 * true or false.
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

/** Whether a count of 0 passes the rule's comparison (a user without a matching event). */
export function zeroPasses(rule: EventRule): boolean {
  const [a, b] = rule.params
  switch (rule.function) {
    case 'EQ':
      return rule.params.includes(0)
    case 'NOT_EQ':
      return !rule.params.includes(0)
    case 'GT':
      return 0 > a
    case 'GTE':
      return 0 >= a
    case 'LT':
      return 0 < a
    case 'LTE':
      return 0 <= a
    case 'RANGE':
      return a <= 0 && 0 <= b
    default:
      throw new Error(`no count comparison for ${rule.function}`)
  }
}

/**
 * An event rule over the users `e`. Users with a matching event in the window are grouped with
 * their count; a user without one counts 0. When 0 fails the comparison, the members are the
 * grouped users whose count passes; when 0 passes, every user but the grouped ones whose count
 * fails. Either way exactly the users whose count (0 included) passes.
 */
function eventRuleSql(rule: EventRule, env: RuleEnvSql, p: SqlParams): string {
  const [from, to] = windowDays(rule.window, env.today)
  const profile = needsProfile(rule.filter) || rule.event.members.some((m) => needsProfile(m.filter))
  const measure = rule.property ? `count(DISTINCT ${env.dialect.columnOf(rule.property.column)})` : 'count(*)'
  const zero = zeroPasses(rule)
  return `e.distinct_id ${zero ? 'NOT IN' : 'IN'} (
      SELECT e.distinct_id
      FROM event_vd e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}
      WHERE e.ds BETWEEN ${p.add(dsOf(from))} AND ${p.add(dsOf(to))}
        AND ${eventSql(rule.event, env, p)}
        AND ${filterSql(rule.filter, env, p)}
      GROUP BY e.distinct_id
      HAVING ${zero ? 'NOT ' : ''}(${countSql(rule, measure, p)}))`
}

/** The SQL of one content (a tag compiles several contents into one statement). */
export function contentSql(content: CheckedContent, env: RuleEnvSql, p: SqlParams): ContentSql {
  let profile = false
  const ruleSql = (rule: Rule): string => {
    if (rule.type === 'user') {
      profile ||= needsProfile({ conditions: [rule.condition], relation: 'AND' })
      return `COALESCE(${conditionSql(rule.condition, env, p)}, ${env.dialect.truth(false)})`
    }
    return eventRuleSql(rule, env, p)
  }
  const groups = content.groups.map((group) => `(${group.rules.map((rule) => `(${ruleSql(rule)})`).join(group.relation === 'OR' ? ' OR ' : ' AND ')})`)
  let condition = groups[0]
  content.between.forEach((relation, i) => {
    condition = `(${condition} AND ${relation === 'AND_NOT' ? 'NOT ' : ''}${groups[i + 1]})`
  })
  return { profile, condition }
}

/** The FROM of a statement over every user, with the profile when some content reads it. */
export function usersFrom(parts: ContentSql[]): string {
  const profile = parts.some((c) => c.profile)
  return `${USERS} e
      ${profile ? 'LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id' : ''}`
}

/** The members of one cohort rule content: (distinct_id, xwho). */
export function membersSql(content: CheckedContent, env: RuleEnvSql, p: SqlParams): string {
  const part = contentSql(content, env, p)
  return `SELECT e.distinct_id, e.xwho
    FROM ${usersFrom([part])}
    WHERE ${part.condition}`
}
