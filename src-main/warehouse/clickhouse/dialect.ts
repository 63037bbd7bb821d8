import type { Dialect } from '../dialect'
import { aggregates } from './parts/aggregates'
import { arrays } from './parts/arrays'
import { customSql } from './parts/customSql'
import { funnels } from './parts/funnels'
import { names } from './parts/names'
import { notYet } from './parts/notYet'
import { outcomes } from './parts/outcomes'
import { numbers } from './parts/numbers'
import { query } from './parts/query'
import { resultText } from './parts/resultText'
import { retention } from './parts/retention'
import { sample } from './parts/sample'
import { tables } from './parts/tables'
import { text } from './parts/text'
import { time } from './parts/time'
import { users } from './parts/users'
import { userSets } from './parts/userSets'

/**
 * ClickHouse's SQL text (18.16 and current versions: docs/clickhouse.md lists every function it
 * uses): the parts of the Dialect (../dialect.ts). One per project time zone: 18.16 has no session
 * time zone, so calendar expressions name the zone themselves.
 */
export function clickhouseDialect(timeZone: string): Dialect {
  return { ...names, ...time(timeZone), ...users, ...sample, ...arrays, ...text, ...numbers, ...query, ...userSets(timeZone), ...customSql, ...tables, ...resultText(timeZone), ...aggregates, ...funnels, ...retention, ...notYet, ...outcomes, ...progress }
}

/** ClickHouse counts every query's rows in system.processes (the executor's `progress`): nothing to switch on. */
const progress = { reportProgress: (): string[] => [] }
