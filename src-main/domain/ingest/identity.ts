import type { Warehouse } from '../../warehouse'
import { USER_ALIASES_DDL } from '../../warehouse/duckdb'

/**
 * `distinct_id`: one stable number per `xwho`, the same in events and profiles, kept in the
 * project's `user_ids` table. New users get the next numbers, in xwho order, inside the load's
 * transaction (so a rolled-back load assigns nothing). An xwho is added only when it has no row
 * (assignDistinctIds, under the project's write lock), so the table needs no primary key: keeping
 * its index cost a load about 0.25 s per 200k new users, and lookups by xwho scan fast enough
 * without it. Tables created with the key (earlier versions) keep it and work the same.
 * After an identity merge (`$alias`, see alias.ts) several xwho share one distinct_id;
 * `user_aliases` lists the merged anonymous ids (`original_id`) and the login id each joined.
 */
export async function ensureUserIds(conn: Warehouse): Promise<void> {
  await conn.run('CREATE TABLE IF NOT EXISTS user_ids (xwho VARCHAR NOT NULL, distinct_id BIGINT NOT NULL)')
  await conn.run(USER_ALIASES_DDL)
}

/**
 * Every user once, as `(distinct_id, xwho)`: a merged user is named by its login id (the one of its
 * ids that was not merged into another). Lists of users (cohort rules, file cohorts, tags, people)
 * read this instead of user_ids, which holds a row per id.
 */
export const USERS = '(SELECT distinct_id, xwho FROM user_ids WHERE xwho NOT IN (SELECT original_id FROM user_aliases))'

/** Assigns ids to the users of `source` (a SQL relation with an `xwho` column) that have none. */
export async function assignDistinctIds(conn: Warehouse, source: string): Promise<number> {
  const result = await conn.run(`INSERT INTO user_ids
    SELECT n.xwho, (SELECT COALESCE(max(distinct_id), 0) FROM user_ids) + row_number() OVER (ORDER BY n.xwho)
    FROM (SELECT DISTINCT xwho FROM ${source}) n
    WHERE NOT EXISTS (SELECT 1 FROM user_ids u WHERE u.xwho = n.xwho)`)
  return result
}
