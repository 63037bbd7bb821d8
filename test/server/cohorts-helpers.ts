import { eventually, type TestServer } from '../helpers/server'

/** Building blocks of cohort rule content and calls shared by the cohort tests. */

type Headers = Record<string, string>

export const userRule = (expression: string, fn: string, params: unknown[] = []) => ({ type: 'user', expression, function: fn, params })

export const eventRule = (expression: string, aggregator: string, fn: string, params: unknown[], time: { abs?: [string, string]; rel?: string }, filter?: unknown) => ({
  type: 'event',
  expression,
  aggregator,
  function: fn,
  params,
  ...(time.abs ? { eventAbsoluteTimeParams: time.abs } : {}),
  ...(time.rel ? { eventRelativeTimeParam: time.rel } : {}),
  ...(filter ? { filter } : {}),
})

export const group = (rules: unknown[], relation = 'AND') => ({ relation, rules })
export const content = (groups: unknown[], relations: string[] = []) => ({ ruleGroup: groups, relations })
/** Content of one group with one rule. */
export const single = (rule: unknown) => content([group([rule])])

let counter = 0
export const uniqueName = (prefix = 'cohort') => `${prefix} ${++counter}`

/** GET a cohort with needMore. */
export async function readCohort(s: TestServer, headers: Headers, id: number): Promise<any> {
  const res = await s.call('GET', `/uba/api/cohort/${id}?needMore=true`, { headers })
  if (res.status !== 200) throw new Error(`cohort ${id}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Waits until the cohort is no longer calculating and returns it (needMore). */
export async function settled(s: TestServer, headers: Headers, id: number): Promise<any> {
  let cohort: any
  await eventually(async () => {
    cohort = await readCohort(s, headers, id)
    return cohort.status !== 'calculating'
  }, 30_000)
  return cohort
}

/** Creates a cohort, waits for its computation, and returns the settled record. */
export async function createCohort(s: TestServer, headers: Headers, body: { name?: string; dynamic?: number; content: unknown }, query = ''): Promise<any> {
  const res = await s.call('POST', `/uba/api/cohort${query}`, { headers, body: { name: uniqueName(), dynamic: 0, ...body } })
  if (res.status !== 200) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`)
  return settled(s, headers, res.body.id)
}

/** The xwho of a cohort's members, in distinct_id order. */
export async function members(s: TestServer, headers: Headers, code: string): Promise<string[]> {
  const res = await s.call('POST', '/uba/api/cohort/users', { headers, body: { cohortCode: code, properties: ['xwho'] } })
  if (res.status !== 200) throw new Error(`users of ${code}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.users.map((u: any) => u.xwho)
}

/** Members of a new static cohort with the given content, sorted. */
export async function membersFor(s: TestServer, headers: Headers, c: unknown): Promise<string[]> {
  const cohort = await createCohort(s, headers, { content: c })
  if (cohort.status !== 'success') throw new Error(`cohort failed: ${cohort.failReason}`)
  return (await members(s, headers, cohort.code)).sort()
}

/** A multipart body with text fields and one file. */
export function form(fields: Record<string, string>, file?: { name: string; data: Buffer | string; type?: string }): FormData {
  const data = new FormData()
  for (const [k, v] of Object.entries(fields)) data.append(k, v)
  if (file) data.append('file', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name)
  return data
}

/** POSTs a multipart form; JSON back. */
export async function postForm(s: TestServer, path: string, headers: Headers, body: FormData): Promise<{ status: number; body: any }> {
  const res = await fetch(s.url + path, { method: 'POST', headers, body })
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    return { status: res.status, body: text }
  }
}
