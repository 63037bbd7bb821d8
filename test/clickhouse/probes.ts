/**
 * What ClickHouse 18.16 (Debian's package) can and cannot do for the analyses, as queries with the
 * answer it gives: `rows` (TabSeparated text) or the error `code`. probes.test.ts checks every line
 * on the real server, so docs/clickhouse.md, written from this list, stays true.
 * Each probe runs in its own database `probe`, after `setup`.
 */
export interface Probe {
  name: string
  sql: string
  setup?: string[]
  /** Per-query settings (param_x: a server-side query parameter, as current versions take them). */
  settings?: Record<string, string>
  rows?: string
  code?: number
}

const funnel = (rows: string, time = 't', window = 10) => `SELECT windowFunnel(${window})(${time}, e = 1, e = 2) FROM (${rows})`
const twoEvents = (type: string, a: string, b: string) => `SELECT to${type}(${a}) AS t, 1 AS e UNION ALL SELECT to${type}(${b}), 2`
const EV = ["CREATE TABLE ev (xwho String, x UInt32) ENGINE = MergeTree ORDER BY xwho", "INSERT INTO ev VALUES ('a', 0), ('a', 1), ('b', 2)"]

const PV = ['CREATE TABLE pv (ds Int32) ENGINE = MergeTree PARTITION BY intDiv(ds, 100) ORDER BY ds', 'INSERT INTO pv VALUES (20240101), (20240102), (20240201)']

export const PROBES: Probe[] = [
  { name: 'query parameters {x:UInt8}', sql: 'SELECT {x:UInt8}', settings: { param_x: '5' }, code: 115 },
  { name: 'DateTime64', sql: "SELECT toDateTime64('2024-01-01 00:00:00.123', 3)", code: 46 },
  { name: 'windowFunnel on DateTime, window inclusive', sql: funnel(twoEvents('DateTime', '1000', '1010')), rows: '2' },
  { name: 'windowFunnel on DateTime, 11 s apart in a 10 s window', sql: funnel(twoEvents('DateTime', '1000', '1011')), rows: '1' },
  { name: 'windowFunnel, both steps in the same second', sql: funnel(twoEvents('DateTime', '1000', '1000')), rows: '2' },
  { name: 'windowFunnel on UInt32', sql: funnel(twoEvents('UInt32', '1000', '1005')), rows: '2' },
  { name: 'windowFunnel on UInt64', sql: funnel(twoEvents('UInt64', '1000', '1005')), code: 43 },
  { name: 'windowFunnel on Int64', sql: funnel(twoEvents('Int64', '1000', '1005')), code: 43 },
  { name: 'windowFunnel on Date', sql: funnel(twoEvents('Date', "'2024-01-01'", "'2024-01-05'")), code: 43 },
  { name: 'windowFunnel on UInt32 just below 2^31', sql: funnel(twoEvents('UInt32', '2147483000', '2147483005')), rows: '2' },
  { name: 'windowFunnel on UInt32 above 2^31 (wrong, silently)', sql: funnel(twoEvents('UInt32', '2147483650', '2147483655')), rows: '0' },
  { name: 'windowFunnel on epoch ms cast to UInt32, 5 s apart in a 10 s window (wrong, silently)', sql: funnel(twoEvents('UInt64', '1700000000000', '1700000005000'), 'toUInt32(t)', 10_000), rows: '0' },
  { name: 'windowFunnel on epoch ms minus the range start, as UInt32', sql: funnel(twoEvents('UInt64', '1700000000000', '1700000005000'), 'toUInt32(t - 1699999000000)', 10_000), rows: '2' },
  { name: 'windowFunnel on DateTime after 2038 (wrong, silently)', sql: funnel(twoEvents('UInt32', '3000000000', '3000000005'), 'toDateTime(t)'), rows: '0' },
  { name: 'retention', sql: "SELECT retention(d = '2024-01-01', d = '2024-01-02', d = '2024-01-04') FROM (SELECT toDate('2024-01-01') AS d UNION ALL SELECT toDate('2024-01-04'))", rows: '[1,0,1]' },
  { name: 'uniqExact', sql: 'SELECT uniqExact(number % 1000), uniqExact(toString(number % 7)) FROM numbers(100000)', rows: '1000\t7' },
  { name: 'arrayJoin, groupArray, arrayFilter', sql: 'SELECT groupArray(x), arrayFilter(v -> v > 1, groupArray(x)) FROM (SELECT arrayJoin([1, 2, 3]) AS x)', rows: '[1,2,3]\t[2,3]' },
  { name: 'lambda over an aggregate capturing the group key', sql: 'SELECT xwho, arrayFilter(v -> v > length(xwho), groupArray(x)) FROM ev GROUP BY xwho ORDER BY xwho', setup: EV, rows: 'a\t[]\nb\t[2]' },
  { name: 'lambda inside an aggregate capturing a column', sql: 'SELECT xwho, groupArray(arrayFilter(v -> v >= x, [0, 1, 2])) FROM ev GROUP BY xwho ORDER BY xwho', setup: EV, code: 47 },
  { name: 'lambda capturing a column, no aggregate, other columns read', sql: 'SELECT xwho, arrayFilter(v -> v >= x, [0, 1, 2]) FROM ev ORDER BY xwho', setup: EV, code: 47 },
  { name: 'same, the column also used outside the lambda', sql: 'SELECT xwho, groupArray(arrayFilter(v -> v >= x, [0, 1, 2])) FROM ev WHERE x >= 0 GROUP BY xwho ORDER BY xwho', setup: EV, rows: 'a\t[[0,1,2],[1,2]]\nb\t[[2]]' },
  { name: 'same, the column passed as a lambda argument', sql: 'SELECT xwho, groupArray(arrayFilter((v, c) -> v >= c, [0, 1, 2], arrayResize(emptyArrayUInt32(), 3, x))) FROM ev GROUP BY xwho ORDER BY xwho', setup: EV, rows: 'a\t[[0,1,2],[1,2]]\nb\t[[2]]' },
  { name: 'arrayFlatten', sql: 'SELECT arrayFlatten([[1], [2]])', code: 46 },
  { name: 'groupBitmap', sql: 'SELECT groupBitmap(number) FROM numbers(3)', code: 46 },
  { name: 'window functions', sql: 'SELECT count() OVER () FROM numbers(3)', code: 62 },
  { name: 'toStartOfWeek', sql: "SELECT toStartOfWeek(toDate('2024-01-03'))", code: 46 },
  { name: 'toMonday in a zone (Sun 20:00 UTC = Mon in Shanghai)', sql: "SELECT toMonday(toDateTime('2024-01-07 20:00:00', 'UTC'), 'Asia/Shanghai')", rows: '2024-01-08' },
  { name: 'toStartOfMonth in a zone', sql: "SELECT toStartOfMonth(toDateTime('2024-01-31 20:00:00', 'UTC'), 'Asia/Shanghai')", rows: '2024-02-01' },
  { name: 'toDate and toYYYYMMDD in a zone', sql: "SELECT toDate(toDateTime('2024-01-07 20:00:00', 'UTC'), 'Asia/Shanghai'), toYYYYMMDD(toDateTime('2024-01-07 20:00:00', 'UTC'), 'Asia/Shanghai')", rows: '2024-01-08\t20240108' },
  { name: 'local day from epoch ms', sql: "SELECT toDate(toDateTime(intDiv(toInt64(1704300000123), 1000)), 'Asia/Shanghai')", rows: '2024-01-04' },
  { name: 'start of a 23-hour day (New York, DST)', sql: "SELECT toUnixTimestamp(toStartOfDay(toDateTime(1710054000), 'America/New_York'))", rows: '1710046800' },
  { name: 'DateTime past 2106 or before 1970 (wraps, silently)', sql: "SELECT toDateTime('2106-02-07 06:28:16', 'UTC'), toDateTime(-1, 'UTC')", rows: '1970-01-01 06:28:16\t1970-01-01 06:28:15' },
  { name: 'an unknown zone', sql: "SELECT toDate(now(), 'Mars/Olympus')", code: 1000 },
  { name: 'ALTER TABLE ADD COLUMN (existing rows read the default)', sql: 'SELECT xwho, price, tags FROM ev ORDER BY x', setup: [...EV, 'ALTER TABLE ev ADD COLUMN price Nullable(Float64)', 'ALTER TABLE ev ADD COLUMN tags Array(String) AFTER xwho'], rows: 'a\t\\N\t[]\na\t\\N\t[]\nb\t\\N\t[]' },
  { name: 'ADD COLUMN IF NOT EXISTS', sql: 'ALTER TABLE ev ADD COLUMN IF NOT EXISTS y UInt8', setup: EV, code: 62 },
  { name: 'Nullable columns', sql: "SELECT a IS NULL, b + 1, ifNull(a, 'none'), c FROM n", setup: ['CREATE TABLE n (a Nullable(String), b Nullable(Int64), c Array(Nullable(String))) ENGINE = MergeTree ORDER BY tuple()', "INSERT INTO n VALUES (NULL, NULL, [NULL, 'x'])"], rows: "1\t\\N\tnone\t[NULL,'x']" },
  { name: 'Nullable in the sorting key', sql: 'CREATE TABLE n2 (a Nullable(String)) ENGINE = MergeTree ORDER BY a', code: 44 },
  { name: 'EXCHANGE TABLES', sql: 'EXCHANGE TABLES ev AND ev_stage', setup: [...EV, 'CREATE TABLE ev_stage AS ev'], code: 62 },
  { name: 'RENAME TABLE swap, several pairs in one statement', sql: 'SELECT xwho FROM ev', setup: [...EV, 'CREATE TABLE ev_stage AS ev', "INSERT INTO ev_stage VALUES ('z', 9)", 'RENAME TABLE ev TO ev_old, ev_stage TO ev'], rows: 'z' },
  { name: 'KILL QUERY for an id not running (no rows)', sql: "KILL QUERY WHERE query_id = 'nobody'", rows: '' },
  { name: 'ATTACH PARTITION ID … FROM another table (its parts are copied: the source keeps them)', sql: 'SELECT (SELECT count() FROM pv), (SELECT count() FROM pv_stage)', setup: [...PV, 'CREATE TABLE pv_stage AS pv', 'INSERT INTO pv_stage VALUES (20240105), (20240107)', "ALTER TABLE pv ATTACH PARTITION ID '202401' FROM pv_stage"], rows: '5\t2' },
  { name: 'REPLACE PARTITION ID … FROM (a copy of a table by hard links)', sql: 'SELECT count() FROM pv_copy', setup: [...PV, 'CREATE TABLE pv_copy AS pv', "ALTER TABLE pv_copy REPLACE PARTITION ID '202401' FROM pv", "ALTER TABLE pv_copy REPLACE PARTITION ID '202402' FROM pv"], rows: '3' },
  { name: 'RowBinary output (little-endian, no header)', sql: 'SELECT toInt32(1) FORMAT RowBinary', rows: '\x01\x00\x00\x00' },
  { name: 'RowBinaryWithNamesAndTypes output', sql: 'SELECT 1 FORMAT RowBinaryWithNamesAndTypes', code: 73 },
  { name: 'DESCRIBE (query): result columns without running it', sql: "DESCRIBE (SELECT 1 AS a, [NULL, 'x'] AS b)", rows: 'a\tUInt8\t\t\t\nb\tArray(Nullable(String))\t\t\t' },
  { name: 'two statements in one request', sql: 'SELECT 1; SELECT 2', code: 62 },
  { name: 'system.columns has no position column', sql: 'SELECT position FROM system.columns LIMIT 1', code: 47 },
]
