import { beforeAll, describe, expect, it } from 'vitest'
import { withWriteLock } from '../../src-main/domain/writeLock'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { eventually, type TestServer } from '../helpers/server'

/*
 * Sample data on either engine: the same requests, counts and answers on a DuckDB project and on a
 * ClickHouse one (whose local DuckDB generates the rows and ships them). The few checks that read the
 * stored rows are written in each engine's SQL.
 */

describe.each(ENGINES)('sample data, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  beforeAll(() => {
    s = host.server
  })

  /** A new project in `timeZone` on the block's engine, ready for data; resolves to its headers. */
  const newProject = (appKey: string, timeZone = 'UTC'): Promise<Project> => host.project(appKey, timeZone)

  /** Polls a job until it has ended; resolves to its last view and the states it went through. */
  async function finished(headers: Record<string, string>, id: string, timeoutMs = 60_000): Promise<{ job: any; states: string[] }> {
    const states: string[] = []
    let job: any
    await eventually(async () => {
      job = (await s.call('GET', `/uba/api/import/jobs/${id}`, { headers })).body
      if (states[states.length - 1] !== job.state) states.push(job.state)
      return !['queued', 'running'].includes(job.state)
    }, timeoutMs)
    return { job, states }
  }

  /** Rows of a query in the engine's own SQL, counts as bigints on both (`host.rows` makes them numbers). */
  async function sql<T = any>(appKey: string, timeZone: string, text: string): Promise<T[]> {
    return s.app.ctx.warehouse.withConnection(appKey, timeZone, (w) => w.query(text)) as Promise<T[]>
  }

  const SMALL = { users: 1000, days: 14, seed: 7, endDate: '2024-06-30' }

  describe('POST /uba/api/import/sample: a small sample as a job', () => {
    let project: { appKey: string; token: string }
    let job: any
    let seconds: number

    beforeAll(async () => {
      project = await newProject('small')
      const t = Date.now()
      const res = await s.call('POST', '/uba/api/import/sample', { headers: project, body: SMALL })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ state: 'queued', kind: 'sample', format: 'generated', source: 'sample e-commerce data', rowsRead: 0, result: null })
      job = (await finished(project, res.body.id)).job
      seconds = (Date.now() - t) / 1000
    })

    it('succeeds with the counts it wrote: one profile per user, every event stored', async () => {
      expect(job.state).toBe('succeeded')
      expect(job.percent).toBe(100)
      expect(job.error).toBeNull()
      const [counts] = await sql(project.appKey, 'UTC', 'SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT count(*) FROM profile_vd) AS profiles')
      expect(job.result).toEqual({ eventsWritten: Number(counts.events), profilesChanged: 1000, debugSkipped: 0, duplicatesSkipped: 0 })
      expect(Number(counts.profiles)).toBe(1000)
      expect(job.rowsRead).toBe(Number(counts.events))
      expect(job.rowsWritten).toBe(Number(counts.events) + 1000)
      expect(job.rowsRejected).toBe(0)
      expect(job.rejected).toEqual([])
    })

    // ClickHouse: slower, not wrong. The rows are generated in a local DuckDB (this very generation) and shipped
    // over HTTP through staging tables attached per partition: at load average 20-22 on the shared 2 cores that
    // took 20.4 s and 24.1 s. Measured at load ~14 (4 runs each): DuckDB 0.9-2.6 s; ClickHouse 5.2-7.9 s, of
    // which ~1.5 s were 56 one-column ALTERs (now one per table: 3.9-5.3 s), the rest the local generation,
    // reading the rows back and writing them as text (~1.5 s of CPU) and ~20 staging requests. A wall-clock bound
    // on a shared machine says little there; what keeps it fast is below: the rows go in bulk, whatever the size.
    it.skipIf(engine === 'clickhouse')('stays fast for 1,000 users over 14 days', () => {
      expect(seconds).toBeLessThan(20)
    })

    it.runIf(engine === 'clickhouse')('ships a sample in the same few inserts whatever its size: the rows go in bulk', async () => {
      const inserts = async (appKey: string, users: number) => {
        const p = await newProject(appKey)
        const sent: string[] = []
        const original = globalThis.fetch
        // the app's requests to the project's database, as the server gets them (a bulk insert names its statement in the URL)
        globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
          const target = new URL(String(input instanceof Request ? input.url : input))
          if (target.origin === host.clickhouse!.url && target.searchParams.get('database') === `uba_${appKey}`) {
            sent.push(typeof init?.body === 'string' ? init.body : String(target.searchParams.get('query')))
          }
          return original(input, init)
        }) as typeof fetch
        try {
          const res = await s.call('POST', '/uba/api/import/sample', { headers: p, body: { ...SMALL, users } })
          const { job } = await finished(p, res.body.id)
          expect(job.state).toBe('succeeded')
          return { inserts: sent.filter((x) => /^\s*INSERT\b/i.test(x)).length, alters: sent.filter((x) => /^\s*ALTER TABLE `(event|profile)_vd` ADD COLUMN/i.test(x)).length, events: job.result.eventsWritten }
        } finally {
          globalThis.fetch = original
        }
      }
      const few = await inserts('smallfew', 100)
      const many = await inserts('smallmany', 1000)
      // ten times the users, about ten times the events, the same inserts: staged events, ids, profiles, the job's record
      expect(many.events).toBeGreaterThan(5 * few.events)
      expect(many.inserts).toBe(few.inserts)
      expect(many.inserts).toBeLessThanOrEqual(6)
      // the property columns: one ALTER per table
      expect(many.alters).toBe(2)
    }, 120_000)

    it('covers exactly the 14 days up to endDate, as the project overview shows', async () => {
      const overview = await s.call('GET', '/uba/api/project', { headers: project })
      expect(overview.body).toMatchObject({ users: 1000, firstDay: '2024-06-17', lastDay: '2024-06-30' })
      expect(overview.body.events).toBe(job.result.eventsWritten)
    })

    it('gives every event a distinct_id that is the profile distinct_id of its xwho', async () => {
      // ClickHouse: a LEFT JOIN's missing row reads 0 (never an id), and 18.16 keeps the joined table's columns under their own names
      const text =
        engine === 'clickhouse'
          ? `SELECT
          (SELECT count() FROM event_vd e LEFT JOIN (SELECT xwho, distinct_id AS profile_id FROM profile_vd) USING (xwho) WHERE profile_id != distinct_id) AS mismatched,
          (SELECT uniqExact(xwho) FROM profile_vd) AS users, (SELECT uniqExact(distinct_id) FROM profile_vd) AS ids,
          (SELECT count() FROM profile_vd JOIN (SELECT xwho, distinct_id AS user_id FROM user_ids) USING (xwho) WHERE user_id = distinct_id) AS registered`
          : `SELECT
          (SELECT count(*) FROM event_vd e LEFT JOIN profile_vd p USING (xwho) WHERE p.distinct_id IS DISTINCT FROM e.distinct_id) AS mismatched,
          (SELECT count(DISTINCT xwho) FROM profile_vd) AS users, (SELECT count(DISTINCT distinct_id) FROM profile_vd) AS ids,
          (SELECT count(*) FROM profile_vd p JOIN user_ids u USING (xwho) WHERE u.distinct_id = p.distinct_id) AS registered`
      const [row] = await sql(project.appKey, 'UTC', text)
      expect(row).toEqual({ mismatched: 0n, users: 1000n, ids: 1000n, registered: 1000n })
    })

    // DuckDB only: its rows keep the order they were written in (rowid); a MergeTree keeps none but its sorting key
    it.runIf(engine === 'duckdb')('stores the events by user, then time, as every load does', async () => {
      const [row] = await sql(project.appKey, 'UTC', `SELECT count(*) AS events,
          count(*) FILTER (WHERE prev_id > distinct_id OR (prev_id = distinct_id AND prev_time > xwhen)) AS out_of_order
        FROM (SELECT distinct_id, xwhen, lag(distinct_id) OVER (ORDER BY rowid) AS prev_id, lag(xwhen) OVER (ORDER BY rowid) AS prev_time FROM event_vd)`)
      expect(row).toEqual({ events: BigInt(job.result.eventsWritten), out_of_order: 0n })
    })

    it('puts every sample event and custom property into the plan with its display name', () => {
      const meta = s.app.ctx.meta
      const event = (id: string) => meta.prepare('SELECT name, plan, data_status AS dataStatus FROM plan_events WHERE app_key = ? AND id = ?').get(project.appKey, id)
      const property = (table: string, id: string) =>
        meta.prepare(`SELECT name, data_type AS dataType, plan, data_status AS dataStatus FROM ${table} WHERE app_key = ? AND id = ?`).get(project.appKey, id)
      expect(event('view_product')).toEqual({ name: 'View product', plan: 1, dataStatus: 1 })
      expect(event('pay')).toEqual({ name: 'Pay', plan: 1, dataStatus: 1 })
      expect(event('$startup')).toEqual({ name: 'App start', plan: 1, dataStatus: 1 })
      expect(property('plan_event_properties', 'price')).toEqual({ name: 'Price', dataType: 'number', plan: 1, dataStatus: 1 })
      expect(property('plan_event_properties', 'coupon_used')).toEqual({ name: 'Coupon used', dataType: 'boolean', plan: 1, dataStatus: 1 })
      expect(property('plan_event_properties', '$city')).toEqual({ name: 'City', dataType: 'string', plan: 1, dataStatus: 1 })
      expect(property('plan_user_properties', 'total_spent')).toEqual({ name: 'Total spent', dataType: 'number', plan: 1, dataStatus: 1 })
      expect(property('plan_user_properties', '$signup_time')).toEqual({ name: 'Sign-up time', dataType: 'datetime', plan: 1, dataStatus: 1 })
      const unnamed = meta.prepare('SELECT id FROM plan_events WHERE app_key = ? AND data_status = 1 AND (name IS NULL OR plan = 0)').all(project.appKey)
      expect(unnamed).toEqual([])
      const unnamedProperties = meta
        .prepare(`SELECT id FROM plan_event_properties WHERE app_key = ? AND data_status = 1 AND (name IS NULL OR plan = 0)
                  UNION ALL SELECT id FROM plan_user_properties WHERE app_key = ? AND data_status = 1 AND (name IS NULL OR plan = 0)`)
        .all(project.appKey, project.appKey)
      expect(unnamedProperties).toEqual([])
    })

    it('creates the products dimension table, related by product_id to every product viewed', async () => {
      const fields = await s.call('GET', '/uba/api/project/dimensions/properties?table=products', { headers: project })
      expect(fields.status).toBe(200)
      expect(fields.body.map((f: any) => [f.id, f.dataType, f.relation])).toEqual([
        ['product_id', 'string', 1],
        ['name', 'string', 0],
        ['category', 'string', 0],
        ['brand', 'string', 0],
        ['price', 'number', 0],
        ['launched_at', 'datetime', 0],
        ['tags', 'array<string>', 0],
      ])
      // ClickHouse has no correlated subquery: the same question as a tuple NOT IN
      const text =
        engine === 'clickhouse'
          ? `SELECT count() AS unknown FROM event_vd
        WHERE isNotNull(product_id) AND (assumeNotNull(product_id), assumeNotNull(price), assumeNotNull(category)) NOT IN
          (SELECT assumeNotNull(product_id), assumeNotNull(price), assumeNotNull(category) FROM products WHERE isNotNull(product_id) AND isNotNull(price) AND isNotNull(category))`
          : `SELECT count(*) AS unknown FROM event_vd e
        WHERE e.product_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM products p WHERE p.product_id = e.product_id AND p.price = e.price AND p.category = e.category)`
      const [row] = await sql(project.appKey, 'UTC', text)
      expect(row.unknown).toBe(0n)
    })

    it('is listed among the import jobs with its options', async () => {
      const list = await s.call('GET', '/uba/api/import/jobs', { headers: project })
      expect(list.body.map((j: any) => [j.id, j.kind, j.state])).toEqual([[job.id, 'sample', 'succeeded']])
    })

    it('refuses a second load: 400 naming project, and nothing more is written', async () => {
      const res = await s.call('POST', '/uba/api/import/sample', { headers: project, body: { users: 10 } })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual(['project'])
      expect(res.body.msg).toContain('create a new project')
      const overview = await s.call('GET', '/uba/api/project', { headers: project })
      expect(overview.body.events).toBe(job.result.eventsWritten)
      expect((await s.call('GET', '/uba/api/import/jobs', { headers: project })).body).toHaveLength(1)
    })
  })

  describe('POST /uba/api/import/sample: refused requests', () => {
    const cases: [string, unknown, string][] = [
      ['users 0', { users: 0 }, 'users'],
      ['users above 5,000,000', { users: 5_000_001 }, 'users'],
      ['users as a word', { users: 'hundred' }, 'users'],
      ['days 0', { days: 0 }, 'days'],
      ['days above 730', { days: 731 }, 'days'],
      ['a fractional seed', { seed: 1.5 }, 'seed'],
      ['a negative seed', { seed: -1 }, 'seed'],
      ['endDate not yyyy-MM-dd', { endDate: '2024/06/30' }, 'endDate'],
      ['endDate not a date', { endDate: '2024-02-30' }, 'endDate'],
      ['endDate today or later', { endDate: '2999-01-01' }, 'endDate'],
    ]
    let project: Project
    beforeAll(async () => {
      project = await newProject('refused')
    })
    it.each(cases)('%s: 400 naming the field, no job', async (_label, body, field) => {
      const res = await s.call('POST', '/uba/api/import/sample', { headers: project, body })
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual([field])
      expect((await s.call('GET', '/uba/api/import/jobs', { headers: project })).body).toEqual([])
    })

    it('answers 401 without project credentials', async () => {
      const res = await s.call('POST', '/uba/api/import/sample', { body: {} })
      expect(res.status).toBe(401)
    })
  })

  describe('cancelling a sample', () => {
    it('right after it starts running leaves nothing: no rows, ids, columns, plan data or products table', async () => {
      const project = await newProject('cancelled')
      const planBefore = s.app.ctx.meta.prepare('SELECT id, name, plan, data_status FROM plan_event_properties WHERE app_key = ? ORDER BY id').all('cancelled')
      const started = await s.call('POST', '/uba/api/import/sample', { headers: project, body: { users: 400_000, days: 90, endDate: '2024-06-30' } })
      expect(started.status).toBe(200)
      await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: project })).body.state === 'running', 30_000)
      await new Promise((r) => setTimeout(r, 300))
      const cancel = await s.call('DELETE', `/uba/api/import/jobs/${started.body.id}`, { headers: project })
      expect(cancel.status).toBe(200)
      const { job, states } = await finished(project, started.body.id)
      expect(states[states.length - 1]).toBe('cancelled')
      expect(job).toMatchObject({ state: 'cancelled', result: null, rowsWritten: 0 })

      // every table's columns, in the engine's catalog. ClickHouse creates user_ids and user_aliases with the
      // project, and a load the (empty) uba_outcomes_<folder> before it begins (domain/outcomes.ts: no transaction there);
      // 18.16's system.columns has no position: it lists tables by name, columns in their order
      const catalog =
        engine === 'clickhouse'
          ? "SELECT concat(table, '.', name) AS c FROM system.columns WHERE database = currentDatabase() AND table NOT IN ('user_ids', 'user_aliases') AND NOT startsWith(table, 'uba_outcomes')"
          : "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
      const columns = await sql(project.appKey, 'UTC', catalog)
      expect(columns.map((r) => r.c)).toEqual(['event_vd.distinct_id', 'event_vd.xwho', 'event_vd.xwhat', 'event_vd.xwhen', 'event_vd.ds', 'profile_vd.distinct_id', 'profile_vd.xwho'])
      const [counts] = await sql(project.appKey, 'UTC', 'SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT count(*) FROM profile_vd) AS profiles')
      expect(counts).toEqual({ events: 0n, profiles: 0n })
      const meta = s.app.ctx.meta
      const reported = (table: string) => meta.prepare(`SELECT id FROM ${table} WHERE app_key = ? AND data_status = 1`).all('cancelled')
      expect([reported('plan_events'), reported('plan_event_properties'), reported('plan_user_properties')]).toEqual([[], [], []])
      expect(meta.prepare('SELECT id, name, plan, data_status FROM plan_event_properties WHERE app_key = ? ORDER BY id').all('cancelled')).toEqual(planBefore)
      expect(meta.prepare('SELECT name FROM dimension_tables WHERE app_key = ?').all('cancelled')).toEqual([])

      // nothing left behind: the project takes a sample afterwards
      const again = await s.call('POST', '/uba/api/import/sample', { headers: project, body: SMALL })
      expect(again.status).toBe(200)
      expect((await finished(project, again.body.id)).job.state).toBe('succeeded')
    })

    it('while it is still queued behind another writer ends it before it starts', async () => {
      const project = await newProject('queued')
      let release = () => {}
      const held = withWriteLock(s.app.ctx, 'queued', () => new Promise<void>((r) => (release = r)))
      const started = await s.call('POST', '/uba/api/import/sample', { headers: project, body: SMALL })
      expect(started.body.state).toBe('queued')
      const cancel = await s.call('DELETE', `/uba/api/import/jobs/${started.body.id}`, { headers: project })
      expect(cancel.body).toMatchObject({ state: 'cancelled', error: 'cancelled before it started' })
      release()
      await held
      await s.app.ctx.background.idle()
      expect((await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: project })).body.state).toBe('cancelled')
      const [counts] = await sql('queued', 'UTC', 'SELECT count(*) AS events FROM event_vd')
      expect(counts.events).toBe(0n)
    })

    it('refuses a second sample while one is queued or running', async () => {
      const project = await newProject('twice')
      const first = await s.call('POST', '/uba/api/import/sample', { headers: project, body: SMALL })
      const second = await s.call('POST', '/uba/api/import/sample', { headers: project, body: { ...SMALL, seed: 8 } })
      expect(second.status).toBe(400)
      expect(second.body).toEqual({ code: 400, msg: `sample data is already being loaded into this project (job ${first.body.id})`, data: ['project'] })
      expect((await finished(project, first.body.id)).job.state).toBe('succeeded')
      expect((await s.call('GET', '/uba/api/import/jobs', { headers: project })).body).toHaveLength(1)
    })

    it('fails without writing when data arrived while it waited in the queue', async () => {
      const project = await newProject('raced')
      let release = () => {}
      const held = withWriteLock(s.app.ctx, 'raced', () => new Promise<void>((r) => (release = r)))
      const started = await s.call('POST', '/uba/api/import/sample', { headers: project, body: SMALL })
      expect(started.status).toBe(200)
      // an import that holds the lock writes one event meanwhile
      const insert =
        engine === 'clickhouse'
          ? 'INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds) VALUES (1, \'someone\', \'visit\', 1704067200000, 20240101)'
          : "INSERT INTO event_vd VALUES (1, 'someone', 'visit', now(), 20240101)"
      await s.app.ctx.warehouse.withConnection('raced', 'UTC', (w) => w.run(insert))
      release()
      await held
      const { job } = await finished(project, started.body.id)
      expect(job).toMatchObject({ state: 'failed', result: null })
      expect(job.error).toBe('sample data goes only into an empty project, and this one holds 1 events and 0 user profiles: create a new project for the sample')
      const [counts] = await sql('raced', 'UTC', 'SELECT (SELECT count(*) FROM event_vd) AS events, (SELECT count(*) FROM profile_vd) AS profiles')
      expect(counts).toEqual({ events: 1n, profiles: 0n })
    })
  })
})
