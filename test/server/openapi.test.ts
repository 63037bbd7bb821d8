import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let doc: any

beforeAll(async () => {
  s = await startTestServer()
  doc = (await s.call('GET', '/openapi.json')).body
})
afterAll(() => s.stop())

describe('/openapi.json and /docs', () => {
  it('is OpenAPI 3.1 with the three credentials as security schemes', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['appKey', 'token', 'xtoken'])
  })

  it("documents the foundation's routes, and every documented route with its security and error answers", () => {
    const expected = [
      'get /uba/manage/enterprise/projects',
      'post /uba/manage/enterprise/projects',
      'get /uba/manage/enterprise/projects/{appKey}',
      'post /uba/manage/enterprise/projects/{appKey}/stream',
      'post /uba/manage/enterprise/accounts',
      'post /uba/manage/enterprise/accounts/activation',
      'get /uba/manage/project/roles',
      'get /uba/manage/project/users',
      'post /uba/manage/project/users',
      'delete /uba/manage/project/users',
      'get /uba/api/project',
      'get /health',
    ]
    const documented = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) => Object.keys(ops).map((m) => `${m} ${path}`))
    // later areas add their own routes; these must always be there
    expect(documented).toEqual(expect.arrayContaining(expected))
    const declared = doc.tags.map((t: { name: string }) => t.name)
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        // open by design: health, and the SDK collector (records carry their appid)
        if (path === '/health' || path === '/up') continue
        expect(op.security, `${method} ${path}`).toBeDefined()
        expect(op.responses['401'], `${method} ${path}`).toBeDefined()
        expect(op.summary, `${method} ${path}`).toBeTruthy()
        // every area is described in the tag list /docs groups by
        for (const tag of op.tags ?? []) expect(declared, `${method} ${path}: tag ${tag}`).toContain(tag)
      }
    }
  })

  it('describes request bodies from the same schemas that validate them', () => {
    const create = doc.paths['/uba/manage/enterprise/projects'].post
    const body = create.requestBody.content['application/json'].schema
    expect(body.required).toEqual(['name'])
    expect(body.properties.name.pattern).toBe('^[A-Za-z0-9]{1,50}$')
  })

  it('publishes request bodies as open to fields they do not list, which the API ignores', async () => {
    const found: string[] = []
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}[${i}]`))
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'additionalProperties' && v === false) found.push(at)
          walk(v, `${at}.${k}`)
        }
      }
    }
    for (const [path, ops] of Object.entries<any>(doc.paths)) for (const [method, op] of Object.entries<any>(ops)) walk(op.requestBody, `${method} ${path}`)
    expect(found).toEqual([])
    expect(doc.info.description).toContain('ignores body fields it does')
    const members = doc.paths['/uba/manage/project/users'].post.requestBody.content['application/json'].schema
    expect(members.properties.users.items.required).toEqual(['email', 'role'])
  })

  it('gives the analysis requests real schemas for generated clients', () => {
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema
    const funnel = body('/uba/api/funnels/analyze')
    expect(funnel.required).toEqual(['steps', 'crowds', 'fromDate', 'toDate'])
    expect(funnel.properties.steps.items.properties.filter.properties.conditions.items.required).toEqual(['expression', 'function'])
    expect(funnel.properties.convertTimeUnit.enum).toEqual(['DAY', 'HOUR', 'MINUTE'])
    expect(funnel.properties.byField.properties.buckets.items.type).toBe('number')
    expect(body('/uba/api/events/analyze').properties.measures.items.properties.aggregator.enum).toContain('AVG_PER')
    expect(body('/uba/api/retentions/analyze').required).toContain('duration')
    expect(body('/uba/api/distributions/analyze').properties.unit.enum).toEqual(['', 'DAY', 'WEEK', 'MONTH'])
    expect(body('/uba/api/userAttributes/analyze').properties.measure.properties.aggregator.enum).toEqual(['USER_COUNT', 'REMOVE_DUMPLICATE', 'SUM', 'AVG', 'MAX', 'MIN', 'AVG_PER'])
  })

  it('serves the interactive reference at /docs', async () => {
    const res = await fetch(`${s.url}/docs/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(await res.text()).toContain('swagger')
  })
})
