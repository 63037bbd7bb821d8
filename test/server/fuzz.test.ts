import Ajv, { type ValidateFunction } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Fuzzer, prng, send, type Operation, type Schema } from '../helpers/fuzz'
import { fuzzRequest } from '../helpers/fuzz-requests'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * Every operation of /openapi.json, fuzzed with valid credentials and one thing wrong at a time.
 * Asserted for every answer: no 500, a status the operation documents, a JSON 200 body that fits
 * its documented schema, and `{code, msg, data}` for every error (data lists parameters on a 400). Deterministic: a fixed seed and a fixed number of
 * rounds; the time budget only stops it early on a slow machine.
 */

const SEED = 20261126
const ROUNDS = 60
/** Rounds run whatever the time: every operation is fuzzed at least this often. */
const MIN_ROUNDS = 5
const BUDGET_MS = 35_000
const REQUEST_TIMEOUT_MS = 15_000

let s: TestServer
let operations: Operation[]
let words: string[]

/** Property names and enum values of the whole spec, plus words of analysis requests. */
function vocabulary(spec: Schema): string[] {
  const found = new Set<string>(['fromDate', 'toDate', 'measures', 'measure', 'expression', 'aggregator', 'TOTAL_COUNT', 'USER_COUNT', 'event.pay',
    'event.$startup', 'event.pay.price', 'user.$city', 'crowds', '$ALL', 'unit', 'day', 'week', 'steps', 'window', 'byField', 'groups', 'filter',
    'conditions', 'operator', 'equal', 'values', 'xwho', 'pay', 'u1', '2024-01-01', 'Default', 'SELECT 1', 'SELECT xwhat, count(*) FROM event_vd GROUP BY 1'])
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk)
    if (!node || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value && typeof value === 'object') Object.keys(value).forEach((k) => found.add(k))
      if (key === 'enum' && Array.isArray(value)) value.filter((v) => typeof v === 'string').forEach((v) => found.add(v))
      walk(value)
    }
  }
  walk(spec.paths)
  return [...found].sort()
}

beforeAll(async () => {
  s = await startTestServer()
  // a little data, so that analyses, people and SQL reach their engines
  const sample = await s.call('POST', '/uba/api/import/sample', { headers: s.project, body: { users: 60, days: 5 } })
  expect(sample.status).toBe(200)
  await s.app.ctx.background.idle()
  const spec = (await s.call('GET', '/openapi.json')).body
  words = vocabulary(spec)
  operations = Object.entries<Record<string, Schema>>(spec.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  )
})
afterAll(() => s.stop())

interface Finding {
  operation: string
  status: number
  note: string
  problem: string
  body: string
}

const ajv = new Ajv({ strict: false, allErrors: false })
ajv.addFormat('binary', true)
const okValidators = new Map<Schema, ValidateFunction | null>()

/** The documented 200 JSON schema of an operation, compiled once (null when it is not JSON). */
function okValidator(op: Schema): ValidateFunction | null {
  if (!okValidators.has(op)) {
    const schema = op.responses['200']?.content?.['application/json']?.schema
    okValidators.set(op, schema ? ajv.compile(schema) : null)
  }
  return okValidators.get(op)!
}

/** What is wrong with one answer, or null. */
function problemOf(op: Schema, status: number, body: unknown, text: string): string | null {
  if (status >= 500 && !(status in op.responses)) return `status ${status}`
  if (!(String(status) in op.responses)) return `undocumented status ${status}`
  if (status === 200) {
    const validate = okValidator(op)
    if (!validate || body === text) return null
    return validate(body) ? null : `200 body does not match its schema: ${ajv.errorsText(validate.errors)}`
  }
  const b = body as Record<string, unknown> | null
  if (!b || typeof b !== 'object' || Object.keys(b).sort().join() !== 'code,data,msg') return 'error body is not {code, msg, data}'
  if (typeof b.code !== 'number' || typeof b.msg !== 'string' || b.msg === '') return 'error body has a wrong code or msg'
  if (status === 400 && !(Array.isArray(b.data) && b.data.length > 0 && b.data.every((d) => typeof d === 'string'))) return '400 without the offending parameters'
  return null
}

describe('schema-driven fuzzing of every operation', () => {
  it('gives no 500, only documented statuses, and {code, msg, data} errors', async () => {
    const f = new Fuzzer(prng(SEED), words)
    const findings: Finding[] = []
    const started = Date.now()
    let requests = 0
    const statuses: Record<number, number> = {}
    for (let round = 0; round < ROUNDS && (round < MIN_ROUNDS || Date.now() - started < BUDGET_MS); round++) {
      for (const operation of operations) {
        const req = fuzzRequest(f, operation, { xtoken: s.creds.xtoken, ...s.project })
        const name = `${req.method} ${operation.path}`
        requests++
        let status = 0
        let text = ''
        try {
          ;({ status, text } = await send(s.app.port, req, REQUEST_TIMEOUT_MS))
        } catch (err) {
          findings.push({ operation: name, status, note: req.note, problem: `no answer: ${(err as Error).message}`, body: '' })
          continue
        }
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // a CSV or JSON-lines answer (200) stays text
        }
        statuses[status] = (statuses[status] ?? 0) + 1
        const problem = problemOf(operation.op, status, body, text)
        if (problem) findings.push({ operation: name, status, note: req.note, problem, body: text.slice(0, 200) })
      }
      // jobs the fuzzer queued (imports, cohorts) run between rounds, not piled up at the end
      await s.app.ctx.background.idle()
    }
    const seconds = (Date.now() - started) / 1000
    // the figures of the run, for the record (issue 17)
    process.stdout.write(`fuzz: ${operations.length} operations, ${requests} requests, ${seconds.toFixed(1)} s, ${findings.length} findings; statuses ${JSON.stringify(statuses)}\n`)
    const distinct = [...new Map(findings.map((x) => [`${x.operation} ${x.problem}`, x])).values()]
    for (const x of distinct) process.stdout.write(`finding: ${x.operation} | ${x.problem} | ${x.note} | ${x.body}\n`)
    expect(distinct).toEqual([])
    expect(operations.length).toBeGreaterThan(60)
    expect(requests).toBeGreaterThanOrEqual(operations.length * 5)
  }, 120_000)
})
