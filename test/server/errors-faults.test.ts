import { constants } from 'node:buffer'
import { beforeAll, describe, expect, it } from 'vitest'
import { setSetting } from '../../src-main/domain/platform/settings'
import { tooLargeToSend } from '../../src-main/domain/sql/limits'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { rawRequest } from '../helpers/raw'
import type { TestServer } from '../helpers/server'

/*
 * Faults of the HTTP layer and of custom SQL answers, asked of a project on either engine: the same
 * requests and answers on DuckDB and on ClickHouse (custom SQL is the project's engine's SQL).
 */

describe('custom SQL whose answer is too large for a string: the mapping', () => {
  it('maps V8 string limits to a 400 naming sql, and nothing else', () => {
    let tooLong: unknown
    try {
      Buffer.alloc(constants.MAX_STRING_LENGTH + 1).toString('latin1')
    } catch (err) {
      tooLong = err
    }
    let invalid: unknown
    try {
      'x'.repeat(constants.MAX_STRING_LENGTH + 1)
    } catch (err) {
      invalid = err
    }
    for (const err of [tooLong, invalid]) {
      const mapped = tooLargeToSend(err)
      expect(mapped?.status).toBe(400)
      expect(mapped?.data).toEqual(['sql'])
      expect(mapped?.message).toMatch(/too large to send/)
    }
    expect(tooLargeToSend(new Error('Binder Error: x'))).toBeNull()
    expect(tooLargeToSend(new RangeError('Maximum call stack size exceeded'))).toBeNull()
  })
})

describe.each(ENGINES)('faults, on %s', (engine) => {
  const engineHost = useEngine(engine)
  let s: TestServer
  let p: Project
  let host: string

  beforeAll(async () => {
    s = engineHost.server
    host = `127.0.0.1:${s.app.port}`
    p = await engineHost.project('faults', 'UTC')
  })

  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(s.app.port, 'GET', path, { host, ...p, ...headers })

  describe('no input gives a 500: what Fastify and its plugins refuse is {code, msg, data}', () => {
    it.each(['/docs/static/../package.json', '/docs/static/%2e%2e/package.json', '/docs/static/../../../../etc/passwd'])(
      'answers 404 to a static path that leaves its folder: %s',
      async (path) => {
        const res = await get(path)
        expect(res.status).toBe(404)
        expect(res.body).toEqual({ code: 404, msg: `no endpoint ${path}`, data: null })
      },
    )

    it('answers 404, not a wrong method, to a static file that does not exist', async () => {
      const res = await get('/docs/static/nothing-here.js')
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ code: 404, msg: 'no endpoint /docs/static/nothing-here.js', data: null })
    })

    it('answers 414 naming the parameter when a path parameter is over 100 characters', async () => {
      const res = await get(`/uba/api/cohort/${'7'.repeat(101)}`)
      expect(res.status).toBe(414)
      expect(res.body).toEqual({ code: 414, msg: 'id is longer than 100 characters', data: ['id'] })
      const ok = await get(`/uba/manage/enterprise/projects/${'k'.repeat(100)}`, { xtoken: s.creds.xtoken })
      expect(ok.status).toBe(400)
    })

    it('checks the Host and the credentials before the length of a path parameter', async () => {
      const path = `/uba/api/import/jobs/${'j'.repeat(300)}`
      const foreign = await rawRequest(s.app.port, 'GET', path, { host: 'attacker.example', ...p })
      expect(foreign.status).toBe(400)
      expect(foreign.body.data).toEqual(['Host'])
      const anonymous = await rawRequest(s.app.port, 'GET', path, { host })
      expect(anonymous.status).toBe(401)
      expect(anonymous.body).toEqual({ code: 401, msg: 'missing or wrong token or appKey', data: null })
      expect((await get(path)).status).toBe(414)
      // as long as Node reads a request line at all, the router leaves the answer to the route layer
      const longest = `/uba/api/import/jobs/${'j'.repeat(15_000)}`
      expect((await rawRequest(s.app.port, 'GET', longest, { host: 'attacker.example' })).body.data).toEqual(['Host'])
      expect((await get(longest)).body).toEqual({ code: 414, msg: 'id is longer than 100 characters', data: ['id'] })
    })

    it('answers 400 naming path to a bad %-escape in the path', async () => {
      const res = await get('/uba/api/cohort/%zz')
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg: 'the path is not a valid URL (a bad %-escape)', data: ['path'] })
    })

    it.each([
      ['no boundary', 'multipart/form-data', '--x\r\n'],
      ['a body cut short', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nabc'],
    ])('answers 400 naming body to a multipart upload with %s', async (_what, type, body) => {
      const res = await s.call('POST', '/uba/api/import/preview', { headers: { ...p, 'content-type': type }, rawBody: body })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual(['body'])
      expect(res.body.msg).toMatch(/^the multipart body cannot be read: /)
    })

    it('answers 400 naming headers, as JSON, to a request line and headers over 16 KB', async () => {
      const res = await get(`/uba/api/cohort?loginUser=${'x'.repeat(20_000)}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg: 'the request line and headers are larger than 16 KB: send long values in a JSON body', data: ['headers'] })
    })

    it('answers 400 naming body to a cohort file upload cut short', async () => {
      const body = '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nu1\nu2'
      for (const path of ['/uba/api/cohort/byfile', '/uba/api/tags/byfile']) {
        const res = await s.call('POST', path, { headers: { ...p, 'content-type': 'multipart/form-data; boundary=x' }, rawBody: body })
        expect(res.status).toBe(400)
        expect(res.body.data).toEqual(['body'])
      }
    })

    it('documents 414 on every operation with a path parameter', async () => {
      const spec = (await s.call('GET', '/openapi.json')).body
      for (const [path, ops] of Object.entries<Record<string, any>>(spec.paths)) {
        for (const op of Object.values(ops)) expect(Object.keys(op.responses).includes('414')).toBe(path.includes('{'))
      }
    })
  })

  describe('custom SQL whose answer is too large for a string', () => {
    // the same rows in each engine's SQL: ClickHouse's sandbox takes no table function (the rows come from
    // arrayJoin), and 18.16 has no repeat (a text of n x's is n of them joined)
    const repeat = (c: string, n: number) => (engine === 'clickhouse' ? `arrayStringConcat(arrayResize(emptyArrayString(), ${n}, '${c}'))` : `repeat('${c}', ${n})`)

    // ClickHouse: 100,000 x's as a constant built once by nested concat (WITH aliases); 18.16 has no repeat
    const tenfold = (from: string, to: string) => `concat(${Array(10).fill(from).join(', ')}) AS ${to}`
    const X100K = `WITH 'xxxxxxxxxx' AS x10, ${tenfold('x10', 'x100')}, ${tenfold('x100', 'x1k')}, ${tenfold('x1k', 'x10k')}, ${tenfold('x10k', 'x100k')}`

    // The same answer on both engines: each computes the 5,400 rows and streams 540 MB of text, past what
    // the app can hold as one answer. (This test once skipped ClickHouse, which answered 501: the text was
    // built by `repeat` above, 5,400 arrays of 100,000 strings in one block, 2.5 GiB past the test server's
    // 1.86 GiB per query; that is the engine's memory, answered as such below.)
    it('answers 400 naming sql, not 500, to a query answer over the string limit', async () => {
      const sql = engine === 'clickhouse' ? `${X100K} SELECT x100k AS v FROM (SELECT arrayJoin(range(5400)))` : "SELECT repeat('x', 100000) AS v FROM range(5400)"
      // the time limit (60 s by default) is not what is tested: 540 MB took 22-66 s here at load average 20-28
      setSetting(s.app.ctx.meta, 'sql.query.timeLimitMs', '170000')
      const res = await s.call('POST', '/uba/api/sql/query', { headers: p, body: { sql } }).finally(() => setSetting(s.app.ctx.meta, 'sql.query.timeLimitMs', '60000'))
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body.data).toEqual(['sql'])
      expect(res.body.msg).toMatch(/^a value or row of the result is too large to send/)
    }, 180_000)

    // as DuckDB answers a query past its memory_limit
    it.runIf(engine === 'clickhouse')('answers 501/50103, not 500, when ClickHouse runs out of its memory computing the rows', async () => {
      const res = await s.call('POST', '/uba/api/sql/query', { headers: p, body: { sql: `SELECT ${repeat('x', 100000)} AS v FROM (SELECT arrayJoin(range(5400)))` } })
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(501)
      expect(res.body.code).toBe(50103)
      expect(res.body.msg).toMatch(/^the query needs more memory than the query engine has: .*Memory limit/)
    })

    it('answers a query over a long text that stays under the limit', async () => {
      const head = engine === 'clickhouse' ? `substring(${repeat('y', 1000000)}, 1, 3)` : "left(repeat('y', 1000000), 3)"
      const small = await s.call('POST', '/uba/api/sql/query', { headers: p, body: { sql: `SELECT length(${repeat('x', 1000000)}) AS n, ${head} AS head`, format: 'json' } })
      expect(small.status).toBe(200)
      expect(small.body).toEqual([{ n: 1000000, head: 'yyy' }])
    })
  })
})
