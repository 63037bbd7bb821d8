import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/server'

/**
 * A named analysis run on the embedded DuckDB, over HTTP: once the analysis has answered, its
 * progress route streams the one end line for a minute, shaped as /openapi.json describes a line
 * (the schema the renderer's RunProgress comes from), and a cancel finds nothing to stop.
 */

let s: TestServer
let headers: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  headers = s.project
})
afterAll(() => s.stop())

const analysis = { crowds: ['$ALL'], fromDate: '2024-06-01', toDate: '2024-06-02', unit: 'DAY', measures: [{ expression: 'event.$pageview', aggregator: 'TOTAL_COUNT' }] }

describe('the progress and cancel of a named analysis', () => {
  it('streams an ended run as one JSON line with its end state, and a cancel of it stops nothing', async () => {
    const answered = await s.call('POST', '/uba/api/events/analyze?runId=ended-run', { headers, body: analysis })
    expect(answered.status, JSON.stringify(answered.body)).toBe(200)

    const res = await fetch(`${s.url}/uba/api/analyses/ended-run/progress`, { headers })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    expect(await res.text()).toBe('{"state":"finished"}\n')

    const cancel = await s.call('DELETE', '/uba/api/analyses/ended-run', { headers })
    expect(cancel.status).toBe(200)
    expect(cancel.body).toEqual({ runId: 'ended-run', cancelled: false })
  })

  it('publishes the schema of one progress line, its states named, progress a number on running lines only', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body
    const ok = doc.paths['/uba/api/analyses/{runId}/progress'].get.responses['200']
    expect(Object.keys(ok.content)).toEqual(['application/x-ndjson'])
    const line = ok.content['application/x-ndjson'].schema
    expect(line.type).toBe('object')
    expect(line.required).toEqual(['state'])
    expect(line.additionalProperties).toBe(false)
    expect(line.properties.state.enum).toEqual(['running', 'finished', 'failed', 'cancelled', 'unknown'])
    expect(line.properties.progress.type).toBe('number')
  })
})
