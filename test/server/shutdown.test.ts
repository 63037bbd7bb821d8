import { expect, it } from 'vitest'
import { startTestServer } from '../helpers/server'

it('shuts down even when a client stopped reading a response', async () => {
  const s = await startTestServer({ uiDir: null })
  // a large static file whose body is never read keeps its connection busy
  const stalled = await fetch(`${s.url}/docs/static/swagger-ui-bundle.js`)
  expect(stalled.status).toBe(200)
  const started = Date.now()
  await s.stop()
  // cut after the grace period of a few seconds, not after the minute a socket time-out would take
  expect(Date.now() - started).toBeLessThan(20_000)
}, 60_000)
