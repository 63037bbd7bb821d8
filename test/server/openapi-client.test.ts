import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, importAndWait } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * A client generated from the running server's /openapi.json by openapi-typescript, as a tool's
 * author would make one: a small script that calls a funnel, creates a cohort and exports SQL must
 * type-check against it, with the request fields typed precisely (a schema that says only
 * "object" would let anything through, which the wrong script below shows it does not).
 */

let s: TestServer
let dir: string

beforeAll(async () => {
  s = await startTestServer()
  dir = mkdtempSync(join(tmpdir(), 'uba-openapi-client-'))
  const events = [
    { xwho: 'a', xwhat: 'view', xwhen: Date.UTC(2024, 5, 1, 10) },
    { xwho: 'a', xwhat: 'buy', xwhen: Date.UTC(2024, 5, 1, 11) },
    { xwho: 'b', xwhat: 'view', xwhen: Date.UTC(2024, 5, 2, 10) },
  ]
  const job = await importAndWait(s, s.project, { path: fixture('client.jsonl', events.map((e) => JSON.stringify(e)).join('\n')) })
  expect(job.state).toBe('succeeded')
  const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0]
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)))
})

afterAll(async () => {
  await s?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const TYPES = `import type { paths } from './api'

type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never
type Answer<P extends keyof paths> = paths[P] extends { post: { responses: { 200: { content: { 'application/json': infer R } } } } } ? R : never
export type FunnelRequest = Body<'/uba/api/funnels/analyze'>
export type FunnelAnswer = Answer<'/uba/api/funnels/analyze'>
export type CohortRequest = Body<'/uba/api/cohort'>
export type CohortAnswer = Answer<'/uba/api/cohort'>
export type SqlExportRequest = Body<'/uba/api/sql/export'>
type CohortRule = CohortRequest['content']['ruleGroup'][number]['rules'][number]

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
// each is true only if the schema types the field; a missing schema makes it false or an error
export const precise: [
  Exact<FunnelRequest['steps'][number]['expression'], string>,
  Exact<FunnelRequest['byStepIndex'], number | undefined>,
  Exact<FunnelRequest['convertTimeUnit'], 'DAY' | 'HOUR' | 'MINUTE' | undefined>,
  Exact<CohortRule['type'], 'user' | 'event'>,
  Exact<CohortRule['aggregator'], 'TOTAL_COUNT' | 'REMOVE_DUMPLICATE' | undefined>,
  Exact<CohortRequest['dynamic'], 0 | 1>,
  Exact<SqlExportRequest['sql'], string>,
  Exact<SqlExportRequest['format'], 'json' | 'csv' | undefined>,
  Exact<NonNullable<FunnelAnswer['stepEvents']>, string[]>,
  Exact<CohortAnswer['code'], string | undefined>,
] = [true, true, true, true, true, true, true, true, true, true]
`

const CLIENT = `import type { CohortAnswer, CohortRequest, FunnelAnswer, FunnelRequest, SqlExportRequest } from './types'

async function post(base: string, headers: Record<string, string>, path: string, body: unknown): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

export async function run(base: string, headers: Record<string, string>) {
  const funnelRequest: FunnelRequest = {
    steps: [{ expression: 'event.view' }, { expression: 'event.buy' }],
    crowds: ['$ALL'],
    fromDate: '2024-06-01',
    toDate: '2024-06-07',
    convertTime: 1,
    convertTimeUnit: 'DAY',
  }
  const funnel = (await (await post(base, headers, '/uba/api/funnels/analyze', funnelRequest)).json()) as FunnelAnswer
  const cohortRequest: CohortRequest = {
    name: 'buyers',
    dynamic: 0,
    content: { ruleGroup: [{ relation: 'AND', rules: [{ type: 'event', expression: 'event.buy', aggregator: 'TOTAL_COUNT', function: 'GTE', params: [1], eventAbsoluteTimeParams: ['2024-06-01', '2024-06-07'] }] }] },
  }
  const cohort = (await (await post(base, headers, '/uba/api/cohort', cohortRequest)).json()) as CohortAnswer
  const exportRequest: SqlExportRequest = { sql: 'SELECT xwho, xwhat FROM event_vd ORDER BY xwhen', format: 'csv' }
  const csv = await (await post(base, headers, '/uba/api/sql/export', exportRequest)).text()
  const stepEvents: string[] = funnel.stepEvents ?? []
  const code: string = cohort.code ?? ''
  return { stepEvents, code, csv }
}
`

const WRONG = `import type { CohortRequest, FunnelRequest, SqlExportRequest } from './types'

export const unit: FunnelRequest['convertTimeUnit'] = 'WEEK'
export const rule: CohortRequest['content']['ruleGroup'][number]['rules'][number] = { type: 'cohort', expression: 'event.buy', function: 'GTE' }
export const format: SqlExportRequest = { sql: 'SELECT 1', format: 'xml' }
`

/** tsc's verdict on the two scripts (one program: a check takes half a minute on a loaded machine), strict, with the DOM's fetch. */
let verdict: string[] | undefined
function typeErrors(file: string): string[] {
  verdict ??= check()
  return verdict.filter((e) => e.startsWith(`/${file}`) || !e.startsWith('/'))
}

function check(): string[] {
  writeFileSync(join(dir, 'types.ts'), TYPES)
  writeFileSync(join(dir, 'client.ts'), CLIENT)
  writeFileSync(join(dir, 'wrong.ts'), WRONG)
  const program = ts.createProgram([join(dir, 'client.ts'), join(dir, 'wrong.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  })
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.replace(dir, '')}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

describe('a client generated from /openapi.json', () => {
  it('type-checks a script that calls a funnel, creates a cohort and exports SQL, and the script works', async () => {
    expect(typeErrors('client.ts')).toEqual([])
    expect(typeErrors('types.ts')).toEqual([])

    const { run } = (await import(join(dir, 'client.ts'))) as { run: (base: string, headers: Record<string, string>) => Promise<{ stepEvents: string[]; code: string; csv: string }> }
    const result = await run(s.url, s.project)
    expect(result.stepEvents).toEqual(['event.view', 'event.buy'])
    expect(result.code).not.toBe('')
    expect(result.csv).toBe('xwho,xwhat\r\na,view\r\na,buy\r\nb,view\r\n')
  }, 180_000)

  it('refuses values the schemas rule out', () => {
    const errors = typeErrors('wrong.ts')
    expect(errors).toHaveLength(3)
    expect(errors.join('\n')).toContain('"WEEK"')
    expect(errors.join('\n')).toContain('"cohort"')
    expect(errors.join('\n')).toContain('"xml"')
  }, 180_000)
})
