import { join } from 'node:path'
import type { Request } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { emptyReported, recordReported } from '../../src-main/domain/schema/plan'
import { RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { openCharts } from './chartsPage'

/**
 * A long analysis in the Charts view: it shows a Cancel button while it computes; pressing it
 * stops the analysis on the server (its run ends "cancelled") and the chart says it was cancelled.
 * Long because the data is big: 20M events of 2M users over the last 20 days, distinct users a day.
 */

const EVENTS = 20_000_000
const USERS = 2_000_000

const ui = useBrowserTest()

beforeAll(async () => {
  const { appKey } = ui.server.project
  ui.server.app.ctx.meta.prepare("UPDATE projects SET time_zone = 'UTC' WHERE app_key = ?").run(appKey)
  await ui.server.app.ctx.warehouse.withConnection(appKey, 'UTC', (conn) =>
    conn.run(`INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds)
      SELECT i % ${USERS}, 'u' || (i % ${USERS}), 'view', ts, CAST(strftime(ts AT TIME ZONE 'UTC', '%Y%m%d') AS INTEGER)
      FROM (SELECT i, to_timestamp(CAST(epoch(now()) AS BIGINT) - 86400 - i % (20 * 86400)) AS ts FROM range(${EVENTS}) r(i))`),
  )
  const reported = emptyReported()
  reported.events.set('view', { properties: new Set(), platforms: new Set() })
  recordReported(ui.server.app.ctx.meta, appKey, reported)
}, 180_000)

describe('Charts: cancelling a long analysis', () => {
  it('shows Cancel while it computes; Cancel stops it on the server and the chart says so', async () => {
    const c = await openCharts(ui.browser, ui.server, 'light')
    const { page } = c
    const deletes: Request[] = []
    page.on('request', (r) => {
      if (r.method() === 'DELETE' && r.url().includes('/uba/api/analyses/')) deletes.push(r)
    })
    // the default chart (users of any event, a day, the last 30 days) runs by itself
    const cancel = page.getByTestId('run-cancel')
    await cancel.waitFor()
    await page.screenshot({ path: join(RESULTS, 'chart-computing.png'), fullPage: true })
    await cancel.click()

    await expect.poll(() => page.getByTestId('chart-error').textContent()).toContain('You cancelled this computation')
    expect(deletes).toHaveLength(1)
    const runId = decodeURIComponent(deletes[0].url().split('/uba/api/analyses/')[1])
    const analyzed = c.requests.at(-1)!
    expect(analyzed.url()).toContain(`runId=${runId}`)
    // the server's side: the run ended as cancelled, not finished
    const progress = await ui.server.call('GET', `/uba/api/analyses/${runId}/progress`, { headers: ui.server.project })
    expect(progress.body).toEqual({ state: 'cancelled' })
    await page.screenshot({ path: join(RESULTS, 'chart-cancelled.png'), fullPage: true })
    expect(c.problems).toEqual([])
    await page.context().close()
  }, 120_000)
})
