import type { Dialect } from '../dialect'
import { arrays } from './parts/arrays'
import { customSql } from './parts/customSql'
import { loads } from './parts/loads'
import { names } from './parts/names'
import { numbers } from './parts/numbers'
import { query } from './parts/query'
import { aggregates } from './parts/aggregates'
import { records } from './parts/records'
import { resultText } from './parts/resultText'
import { sample } from './parts/sample'
import { tables } from './parts/tables'
import { text } from './parts/text'
import { time } from './parts/time'
import { users } from './parts/users'
import { userSets } from './parts/userSets'

/** DuckDB's SQL text: the parts of the Dialect (../dialect.ts), one object per part. */
export const duckdbDialect: Dialect = { ...names, ...time, ...users, ...sample, ...arrays, ...text, ...numbers, ...query, ...userSets, ...customSql, ...tables, ...resultText, ...records, ...loads, ...aggregates }
