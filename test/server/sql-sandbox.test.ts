import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

// Custom SQL against a hostile caller: everything here must be refused with a 400 naming `sql`
// (never run, never a 500), and the database itself must not reach files even when asked directly.

let s: TestServer
let app: { appKey: string; token: string }
let outside: string

const rec = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ appid: 'box', xwho, xwhat, xwhen, xcontext: { $lib: 'js', $platform: 'js', $os: 'iOS' } })
const query = (sql: string) => s.call('POST', '/uba/api/sql/query', { headers: app, body: { sql, format: 'json' } })

beforeAll(async () => {
  s = await startTestServer()
  app = await newProject(s, 'box', 'UTC')
  const job = await importAndWait(s, app, { path: fixture('box.jsonl', [rec('u1', 'view', 1_700_000_000_000), rec('u2', 'pay', 1_700_000_100_000)].join('\n')) })
  expect(job.state).toBe('succeeded')
  outside = mkdtempSync(join(tmpdir(), 'uba-sql-outside-'))
  writeFileSync(join(outside, 'secret.csv'), 'secret\nhunter2\n')
}, 60_000)
afterAll(async () => {
  await s.stop()
  rmSync(outside, { recursive: true, force: true })
})

async function refused(sql: string, msg?: RegExp): Promise<void> {
  const res = await query(sql)
  expect({ sql, status: res.status, data: res.body?.data }).toEqual({ sql, status: 400, data: ['sql'] })
  if (msg) expect(res.body.msg, sql).toMatch(msg)
  expect(JSON.stringify(res.body)).not.toMatch(/hunter2|root:/)
}

describe('custom SQL sandbox: statements', () => {
  it('refuses more than one statement', async () => {
    await refused('SELECT 1; SELECT 2', /exactly one statement/)
    await refused("SELECT 1; DROP TABLE event_vd", /one SELECT|one statement/)
    await refused("SELECT 1; COPY event_vd TO '/tmp/x.csv'")
  })

  it('refuses data changes, definitions and every statement that is not a SELECT', async () => {
    const statements = [
      'DROP TABLE event_vd',
      "DELETE FROM event_vd WHERE xwho = 'u1'",
      "INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds) VALUES (9, 'x', 'x', now(), 1)",
      "UPDATE event_vd SET xwho = 'x'",
      'CREATE TABLE stolen AS SELECT * FROM user_ids',
      "CREATE VIEW v AS SELECT 1",
      "CREATE MACRO m() AS TABLE SELECT * FROM user_ids",
      'ALTER TABLE event_vd ADD COLUMN z INTEGER',
      'TRUNCATE event_vd',
      'PRAGMA table_info(\'user_ids\')',
      'PRAGMA database_list',
      'SET enable_external_access = true',
      "SET allowed_directories = ['/']",
      'SET threads = 1',
      'RESET threads',
      `COPY event_vd TO '${join(outside, 'copy.csv')}'`,
      `COPY (SELECT * FROM user_ids) TO '${join(outside, 'copy2.csv')}'`,
      `COPY event_vd FROM '${join(outside, 'secret.csv')}'`,
      `EXPORT DATABASE '${join(outside, 'dump')}'`,
      `IMPORT DATABASE '${outside}'`,
      `ATTACH '${join(outside, 'x.duckdb')}' AS x`,
      'DETACH warehouse',
      'INSTALL httpfs',
      'LOAD httpfs',
      'CALL checkpoint()',
      'CHECKPOINT',
      'VACUUM',
      'USE warehouse',
      'BEGIN TRANSACTION',
      'COMMIT',
      'EXPLAIN SELECT 1',
      'EXPLAIN ANALYZE SELECT * FROM event_vd',
      'DESCRIBE event_vd',
      'SUMMARIZE user_ids',
      'SHOW TABLES',
      'SHOW ALL TABLES',
      'PIVOT event_vd ON xwhat USING count(*)',
      "PREPARE p AS SELECT 1",
      "SELECT * FROM event_vd WHERE xwho = $1",
      "SELECT * FROM event_vd WHERE xwho = ?",
    ]
    for (const sql of statements) await refused(sql)
    expect(readdirSync(outside)).toEqual(['secret.csv'])
    expect(await warehouseRows(s, 'box', 'SELECT count(*) AS n FROM event_vd')).toEqual([{ n: 2 }])
  })
})

describe('custom SQL sandbox: what a SELECT may read', () => {
  it('refuses files by name and every file, catalog and SQL-running table function', async () => {
    const secret = join(outside, 'secret.csv')
    const sources = [
      `read_csv('${secret}')`,
      `read_csv_auto('${secret}')`,
      "read_csv('/etc/passwd')",
      `'${secret}'`,
      "'/etc/passwd'",
      '"/etc/passwd"',
      "read_text('/etc/passwd')",
      "read_blob('/etc/passwd')",
      "glob('/*')",
      `read_parquet('${secret}')`,
      `parquet_metadata('${secret}')`,
      `read_json('${secret}')`,
      `read_json_objects('${secret}')`,
      `read_ndjson_auto('${secret}')`,
      `sniff_csv('${secret}')`,
      "query('SELECT * FROM user_ids')",
      "query_table('user_ids')",
      'duckdb_tables()',
      'duckdb_settings()',
      'duckdb_databases()',
      'duckdb_secrets()',
      "pragma_table_info('user_ids')",
      'pragma_database_size()',
      "json_execute_serialized_sql(json_serialize_sql('SELECT * FROM user_ids'))",
      'histogram_values(user_ids, xwho)',
      "sql_auto_complete('SEL')",
      'checkpoint()',
      'test_all_types()',
      "read_csv('https://example.com/x.csv')",
    ]
    for (const source of sources) await refused(`SELECT * FROM ${source}`)
    await refused(`SELECT * FROM read_csv('${secret}')`, /table function read_csv is not allowed/)
    await refused("SELECT * FROM '/etc/passwd'", /cannot be queried/)
  })

  it('refuses forbidden sources hidden in CTEs, subqueries, lateral joins, unions and expressions', async () => {
    const secret = join(outside, 'secret.csv')
    const hidden = [
      `WITH event_vd AS (SELECT * FROM read_csv('${secret}')) SELECT * FROM event_vd`,
      `WITH a AS (SELECT 1), b AS (SELECT * FROM a, read_text('/etc/passwd')) SELECT * FROM b`,
      `SELECT * FROM event_vd WHERE xwho IN (SELECT secret FROM read_csv('${secret}'))`,
      "SELECT (SELECT content FROM read_text('/etc/passwd')) AS x",
      `SELECT * FROM event_vd, LATERAL (SELECT * FROM glob('/*'))`,
      `SELECT * FROM event_vd e JOIN read_csv('${secret}') f ON true`,
      `SELECT xwho FROM event_vd UNION ALL SELECT content FROM read_text('/etc/passwd')`,
      `SELECT xwho FROM event_vd ORDER BY (SELECT count(*) FROM read_text('/etc/passwd'))`,
      `SELECT * FROM (SELECT * FROM (SELECT * FROM query_table('user_ids')))`,
      `SELECT * FROM (VALUES ((SELECT count(*) FROM user_ids)))`,
      `SELECT * FROM (PIVOT (SELECT * FROM user_ids) ON xwho USING count(*))`,
      `SELECT list_transform([1], x -> (SELECT count(*) FROM user_ids))`,
      `SELECT xwho FROM event_vd QUALIFY row_number() OVER () = (SELECT count(*) FROM user_ids)`,
      `WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r, read_text('/etc/passwd') WHERE n < 2) SELECT * FROM r`,
    ]
    for (const sql of hidden) await refused(sql)
  })

  it('keeps internal tables out, also behind CTE names that DuckDB binds to the table', async () => {
    for (const sql of [
      'SELECT * FROM user_ids',
      'SELECT * FROM main.user_ids',
      'SELECT * FROM box.user_ids',
      'SELECT * FROM warehouse.main.user_ids',
      'SELECT * FROM "USER_IDS"',
      // a CTE body does not see its own name or later ones: DuckDB reads the real table there
      'WITH user_ids AS (SELECT * FROM user_ids) SELECT * FROM user_ids',
      'WITH x AS (SELECT * FROM user_ids), user_ids AS (SELECT 1) SELECT * FROM x',
      'WITH RECURSIVE user_ids AS (SELECT * FROM user_ids) SELECT * FROM user_ids',
      'WITH RECURSIVE user_ids AS (SELECT * FROM user_ids UNION ALL SELECT * FROM user_ids) SELECT 1',
      'SELECT * FROM (WITH user_ids AS (SELECT 1) SELECT 1), user_ids',
      'SELECT * FROM information_schema.tables',
      'SELECT * FROM duckdb_tables',
    ]) {
      await refused(sql)
    }
  })

  it('refuses functions that read settings, variables, sequences, the catalog or the log', async () => {
    for (const sql of [
      "SELECT current_setting('allowed_directories')",
      "SELECT getvariable('x')",
      "SELECT nextval('seq')",
      "SELECT write_log('x')",
      'SELECT pg_sleep(100)',
      'SELECT sleep_ms(100000)',
      'SELECT pg_get_viewdef(1)',
      'SELECT format_type(1, 1)',
      "SELECT get_block_size('warehouse')",
      "SELECT main.current_setting('threads')",
    ]) {
      await refused(sql, /not allowed/)
    }
  })

  it('runs what only looks dangerous: CTEs shadowing tables, recursion, value generators', async () => {
    expect((await query("WITH user_ids AS (SELECT 'cte' AS s) SELECT s FROM user_ids")).body).toEqual([{ s: 'cte' }])
    expect((await query('WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t ORDER BY n')).body).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
    expect((await query('WITH a AS (SELECT 2 AS v), b AS (SELECT v * 2 AS w FROM a) SELECT w FROM b')).body).toEqual([{ w: 4 }])
    expect((await query('SELECT count(*) AS n FROM range(5), generate_series(1, 2), unnest([1, 2, 3])')).body).toEqual([{ n: 30 }])
    expect((await query("SELECT key FROM json_each('{\"a\": 1}')")).body).toEqual([{ key: 'a' }])
    expect((await query("SELECT 'read_csv(''/etc/passwd'')' AS text, 'DROP TABLE x; --' AS t2")).body).toEqual([{ text: "read_csv('/etc/passwd')", t2: 'DROP TABLE x; --' }])
    expect((await query('SELECT xwho FROM event_vd ORDER BY xwho; -- done')).body).toEqual([{ xwho: 'u1' }, { xwho: 'u2' }])
  })

  it('lets the rest of DuckDB\'s SELECT through', async () => {
    const queries = [
      'SELECT xwhat, count(*) AS n FROM event_vd GROUP BY ALL ORDER BY ALL',
      'SELECT xwho, row_number() OVER (PARTITION BY xwhat ORDER BY xwhen DESC) AS rn FROM event_vd QUALIFY rn = 1',
      'SELECT count(*) FILTER (WHERE xwhat = \'view\') AS views, list(DISTINCT xwho ORDER BY xwho) AS users FROM event_vd',
      'SELECT * EXCLUDE (xwhen) REPLACE (upper(xwho) AS xwho) FROM event_vd LIMIT 1 OFFSET 1',
      "SELECT COLUMNS('x.*') FROM event_vd",
      'SELECT #1, #2 FROM event_vd',
      'SELECT DISTINCT ON (xwhat) xwhat, xwho FROM event_vd ORDER BY xwhat, xwho',
      'SELECT xwho FROM event_vd UNION BY NAME SELECT xwho FROM profile_vd',
      'SELECT xwho FROM event_vd INTERSECT SELECT xwho FROM profile_vd EXCEPT SELECT \'nobody\'',
      'SELECT e.xwho FROM event_vd e ASOF JOIN event_vd f ON e.xwho = f.xwho AND e.xwhen >= f.xwhen',
      'SELECT * FROM event_vd e POSITIONAL JOIN profile_vd p',
      "SELECT * FROM (PIVOT (SELECT xwhat, \"$os\" FROM event_vd) ON xwhat IN ('view', 'pay') USING count(*))",
      'SELECT * FROM (UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b INTO NAME k VALUE v)',
      'SELECT * FROM event_vd USING SAMPLE 1 ROWS',
      'SELECT * FROM event_vd LIMIT 50%',
      'SELECT [x * 2 FOR x IN [1, 2, 3] IF x > 1] AS l, list_transform([1], x -> x + 1) AS m, {\'a\': 1}.a AS s, map {\'k\': 1} AS mp',
      "SELECT CASE WHEN xwho ~ '^u[0-9]$' THEN 'ok' END, xwho ILIKE 'U%', xwhen BETWEEN TIMESTAMPTZ '2020-01-01' AND now() FROM event_vd",
      'SELECT * FROM (VALUES (1, \'a\'), (2, \'b\')) AS v(n, s) WHERE n IN (SELECT 1) AND EXISTS (SELECT 1 FROM event_vd)',
      'SELECT xwho, lag(xwhen) OVER w, sum(1) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM event_vd WINDOW w AS (ORDER BY xwhen)',
      'SELECT xwhat, "$os", count(*) FROM event_vd GROUP BY GROUPING SETS ((xwhat), ("$os"), ())',
      "SELECT date_trunc('day', xwhen), strftime(xwhen, '%Y%m%d'), epoch_ms(xwhen), xwhen AT TIME ZONE 'UTC' FROM event_vd",
      'FROM event_vd SELECT xwho WHERE ds > 0',
      'TABLE event_vd',
      'SELECT * FROM range(3) r(x), LATERAL (SELECT x + 1 AS y)',
    ]
    for (const sql of queries) {
      const res = await query(sql)
      expect({ sql, status: res.status, msg: res.body?.msg }).toEqual({ sql, status: 200, msg: undefined })
    }
  })

  it('queries cohort and tag tables of the warehouse, and no other table made outside the plan', async () => {
    await s.app.ctx.warehouse.withConnection('box', 'UTC', async (conn) => {
      await conn.run("CREATE TABLE cohort_vip AS SELECT 1 AS distinct_id")
      await conn.run("CREATE TABLE tag_level AS SELECT 1 AS distinct_id, 'gold' AS value")
      await conn.run('CREATE TABLE scratch AS SELECT 1 AS x')
    })
    expect((await query('SELECT count(*) AS n FROM cohort_vip JOIN box.tag_level USING (distinct_id)')).body).toEqual([{ n: 1 }])
    await refused('SELECT * FROM scratch', /cannot be queried/)
  })
})

describe('the warehouse itself cannot reach files (defence in depth)', () => {
  it('refuses file reads and writes on any connection, whatever the SQL', async () => {
    const secret = join(outside, 'secret.csv')
    const attempt = (sql: string) => s.app.ctx.warehouse.withConnection('box', 'UTC', (conn) => conn.run(sql))
    await expect(attempt("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(/Permission Error/)
    await expect(attempt(`SELECT * FROM read_text('${secret}')`)).rejects.toThrow(/Permission Error/)
    await expect(attempt(`COPY (SELECT 1) TO '${join(outside, 'out.csv')}'`)).rejects.toThrow(/Permission Error/)
    await expect(attempt(`ATTACH '${join(outside, 'a.duckdb')}' AS a`)).rejects.toThrow(/Permission Error/)
    await expect(attempt('LOAD httpfs')).rejects.toThrow(/Permission Error|disabled/)
    await expect(attempt('SET enable_external_access = true')).rejects.toThrow(/Cannot enable external access/)
    await expect(attempt("SET allowed_directories = ['/']")).rejects.toThrow(/Cannot change allowed_directories/)
    expect(existsSync(join(outside, 'out.csv'))).toBe(false)
    expect(existsSync(join(outside, 'a.duckdb'))).toBe(false)
  })

  it('still imports local files: they are placed in the staging folder for the read and removed after', async () => {
    const job = await importAndWait(s, app, { path: fixture('more.jsonl', rec('u3', 'view', 1_700_000_200_000)) })
    expect(job).toMatchObject({ state: 'succeeded', rowsWritten: 1 })
    expect(readdirSync(s.app.ctx.warehouse.stagingDirOf('box'))).toEqual([])
  })
})
