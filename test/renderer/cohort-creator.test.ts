import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { fixture, warehouseRows } from '../helpers/ingest'

const ui = useBrowserTest({ sample: { users: 30, days: 3 } })
let headers: { appKey: string; token: string }

beforeAll(() => {
  headers = ui.server.project
})

const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.gender', function: 'EQ', params: ['male'] }] }] }

async function creatorOf(page: Page, id: number): Promise<string> {
  // through another view: the Cohorts view reads the list again when it opens
  await page.getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
  await page.goto(`${ui.server.url}/#/cohorts?id=${id}`)
  await page.getByTestId('cohort-detail').waitFor()
  return ((await page.getByTestId('detail-creator').textContent()) ?? '').trim()
}

describe('Cohorts: who made a cohort', () => {
  it('one made in this app says so; one of a script without an account says the API; an account’s names it', async () => {
    const ids = (await warehouseRows(ui.server, headers.appKey, 'SELECT xwho FROM profile_vd ORDER BY xwho LIMIT 2')).map((r) => String(r.xwho))
    const csv = fixture('made-here.csv', ['xwho', ...ids].join('\n'))
    const { page, problems } = await openView(ui.browser, ui.server, 'Cohorts')
    await page.getByTestId('cohort-from-file').click()
    await page.getByTestId('file-cohort-file').setInputFiles(csv)
    await page.getByTestId('file-cohort-create').click()
    await page.getByTestId('file-cohort-result').waitFor()
    await page.getByTestId('file-cohort-open').click()
    await page.getByTestId('cohort-detail').waitFor()
    const made = ((await ui.server.call('GET', '/uba/api/cohort', { headers })).body as { id: number; name: string }[]).find((c) => c.name === 'made-here')!
    // the server holds the API as its creator: the app sends no loginUser, having no account
    expect((await ui.server.call('GET', `/uba/api/cohort/${made.id}?needMore=true`, { headers })).body.createdUser).toBe('API')
    expect(await page.getByTestId('detail-creator').textContent()).toBe('by you (this app)')

    const script = await ui.server.call('POST', '/uba/api/cohort', { headers, body: { name: 'From a script', dynamic: 1, content: rule } })
    expect(script.status).toBe(200)
    expect(await creatorOf(page, script.body.id)).toBe('through the API (no account)')

    const x = { xtoken: ui.server.creds.xtoken }
    expect((await ui.server.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'ann@example.com', name: 'Ann' } })).status).toBe(200)
    const theirs = await ui.server.call('POST', '/uba/api/cohort?loginUser=ann@example.com', { headers, body: { name: 'Ann’s men', dynamic: 1, content: rule } })
    expect(theirs.status).toBe(200)
    const createdUser = (await ui.server.call('GET', `/uba/api/cohort/${theirs.body.id}?needMore=true`, { headers })).body.createdUser
    expect(createdUser).not.toBe('API')
    expect(await creatorOf(page, theirs.body.id)).toBe(`by ${createdUser}`)
    // the app's own is still its own when opened again
    expect(await creatorOf(page, made.id)).toBe('by you (this app)')
    expect(problems).toEqual([])
    await page.context().close()
  }, 90_000)
})
