import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { fixture, warehouseRows } from '../helpers/ingest'
import { eventually } from '../helpers/server'
import { checkDraft, contentOf, localMessage, newDraft, newEventRule, newUserRule, targetOf } from '../../src-renderer/src/models/cohorts/draft'
import { draftFromContent } from '../../src-renderer/src/models/cohorts/fromContent'

const ui = useBrowserTest({ sample: { users: 400, days: 30 } })
let headers: { appKey: string; token: string }
const en = new Intl.NumberFormat('en-US')

beforeAll(() => {
  headers = ui.server.project
})

/** Opens the Cohorts view, or a cohort by its address (its name as the heading). */
const openCohorts = (colorScheme: 'light' | 'dark', hash = '#/cohorts', heading = 'Cohorts') => openView(ui.browser, ui.server, 'Cohorts', { colorScheme, hash, heading, allow400: true })

/** Opens a search-select (by its trigger's test id, unless already open) and picks the option named `name`. */
async function pick(page: Page, testid: string, search: string, name: string): Promise<void> {
  const trigger = page.getByTestId(testid)
  if ((await trigger.getAttribute('aria-expanded')) !== 'true') await trigger.click()
  const popover = trigger.locator('xpath=..').locator('.popover')
  await popover.getByRole('combobox').fill(search)
  await popover.getByRole('option').filter({ has: page.locator('.label', { hasText: new RegExp(`^${name}$`) }) }).click()
}

const cohortByName = async (name: string) => ((await ui.server.call('GET', '/uba/api/cohort', { headers })).body as { id: number; name: string; code: string }[]).find((c) => c.name === name)

describe('Cohorts view', () => {
  it('starts empty, with both ways to make a cohort', async () => {
    const { page, problems } = await openCohorts('light')
    await page.getByTestId('cohorts-empty').waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-empty.png') })
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('builds a two-group cohort (user property AND NOT event): the server’s refusal marks the rule, then its size is what SQL counts', async () => {
    const { page, problems } = await openCohorts('light')
    await page.getByTestId('cohort-new').click()
    await page.getByRole('heading', { name: 'New cohort', level: 1 }).waitFor()

    // nothing is sent while a rule is incomplete: the rule says what is missing
    await page.getByTestId('cohort-name').fill('Women who never paid')
    await page.getByTestId('cohort-create').click()
    await page.getByTestId('rule-0-0-problem').getByText('Pick a user property.').waitFor()

    await pick(page, 'rule-0-0-property', 'gender', 'Gender')
    await page.getByTestId('rule-0-0-operator').selectOption('EQ')
    const value = page.getByTestId('rule-0-0').getByRole('textbox', { name: 'Group 1 rule 1 value' })
    await value.fill('female')
    await value.press('Enter')

    await page.getByTestId('add-group').click()
    // the new event rule opens its event list at once
    await pick(page, 'rule-1-0-event', 'pay', 'Pay')
    expect(await page.getByTestId('between-0').locator('[aria-checked="true"]').textContent()).toContain('and not')
    await page.getByTestId('rule-1-0-count-operator').selectOption('GTE')
    await page.getByTestId('rule-1-0-count').fill('1')
    // a window longer than the server allows: its 400 names content.ruleGroup[1].rules[0]...
    await page.getByTestId('rule-1-0-days').fill('5000')
    await page.getByTestId('cohort-create').click()
    const problem = page.getByTestId('rule-1-0-problem')
    await problem.waitFor()
    expect(await page.getByTestId('rule-1-0').getAttribute('data-invalid')).toBe('true')
    expect(await problem.textContent()).toContain('3700')
    expect(await page.getByTestId('builder-error').textContent()).toContain('content.ruleGroup[1].rules[0].eventRelativeTimeParam')
    expect(await cohortByName('Women who never paid')).toBeUndefined()
    await page.screenshot({ path: join(RESULTS, 'cohorts-builder-error.png'), fullPage: true })

    await page.getByTestId('rule-1-0-days').fill('90')
    // only the payments of 100 or more count
    const where = page.getByTestId('rule-1-0-filter')
    await where.getByRole('button', { name: '+ Where…' }).click()
    await where.locator('.popover').getByRole('combobox').fill('amount')
    await where.locator('.popover').getByRole('option').filter({ has: page.locator('.label', { hasText: /^Order amount$/ }) }).click()
    await where.getByRole('combobox', { name: 'Group 2 rule 1 where 1 operator' }).selectOption('GTE')
    await where.getByRole('spinbutton', { name: 'Group 2 rule 1 where 1 value' }).fill('100')
    await page.getByTestId('cohort-type').getByRole('radio', { name: 'Static' }).click()
    await page.screenshot({ path: join(RESULTS, 'cohorts-builder.png'), fullPage: true })
    await page.getByTestId('cohort-create').click()
    await page.getByTestId('cohort-detail').waitFor()
    const created = await cohortByName('Women who never paid')
    expect(created).toBeDefined()
    expect(page.url()).toContain(`#/cohorts?id=${created!.id}`)

    // the list polls while it calculates, then shows the result
    await page.getByTestId('detail-status').getByText('Ready').waitFor({ timeout: 30_000 })
    const api = (await ui.server.call('GET', `/uba/api/cohort/${created!.id}?needMore=true`, { headers })).body
    expect(api.status).toBe('success')
    expect(api.dynamic).toBe(0)
    expect(api.content.relations).toEqual(['AND_NOT'])
    expect(api.content.ruleGroup[1].rules[0]).toMatchObject({ expression: 'event.pay', aggregator: 'TOTAL_COUNT', function: 'GTE', params: [1], eventRelativeTimeParam: '89,0,day',
      filter: { conditions: [{ expression: 'event.pay.amount', function: 'GTE', params: [100] }], relation: 'AND' },
    })
    const [sql] = await warehouseRows(
      ui.server,
      headers.appKey,
      "SELECT count(*) AS n FROM profile_vd WHERE gender = 'female' AND xwho NOT IN (SELECT xwho FROM event_vd WHERE xwhat = 'pay' AND amount >= 100)",
    )
    const [women] = await warehouseRows(ui.server, headers.appKey, "SELECT count(*) AS n FROM profile_vd WHERE gender = 'female'")
    const size = Number(sql.n)
    expect(size).toBeGreaterThan(50)
    expect(size).toBeLessThan(Number(women.n))
    expect(api.userNumber).toBe(size)
    const members = (await ui.server.call('POST', '/uba/api/cohort/users', { headers, body: { cohortCode: created!.code, page: 1, pageSize: 1 } })).body
    expect(members.count).toBe(size)
    expect(await page.getByTestId('detail-size').textContent()).toBe(en.format(size))
    await page.getByTestId('cohort-definition').getByText('Gender').waitFor()

    // members: 25 a page, the second page is the API's second page
    await page.getByTestId('members-range').getByText(`1–50 of ${en.format(size)}`).waitFor()
    await page.getByTestId('members-page-size').selectOption('25')
    await page.getByTestId('members-range').getByText(`1–25 of ${en.format(size)}`).waitFor()
    await page.getByTestId('members-next').click()
    await page.getByTestId('members-range').getByText(`26–50 of ${en.format(size)}`).waitFor()
    const second = (await ui.server.call('POST', '/uba/api/cohort/users', { headers, body: { cohortCode: created!.code, page: 2, pageSize: 25, properties: [] } })).body
    await eventually(async () => (await page.getByTestId('member-link').allTextContents()).join() === second.users.map((u: { xwho: string }) => u.xwho).join())
    await page.screenshot({ path: join(RESULTS, 'cohorts-detail.png'), fullPage: true })

    // another column: the page is read again with it, and the choice is kept for the next visit
    await page.getByTestId('members-columns').click()
    await page.getByTestId('column-total_spent').check()
    await page.getByTestId('members-table').locator('th', { hasText: 'Total spent' }).waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-columns.png') })
    await page.keyboard.press('Escape')
    const saved = await page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('uba-desk.cohorts.columns.')).map((k) => localStorage.getItem(k))")
    expect(String(saved)).toContain('total_spent')

    // a member opens in People
    const who = second.users[0].xwho as string
    await page.getByTestId('member-link').first().click()
    await page.getByRole('heading', { name: 'People', level: 1 }).waitFor()
    expect(page.url()).toContain(`#/people?xwho=${encodeURIComponent(who)}`)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('shows the list live and the cohort page in the dark theme; the export is what the export API streams', async () => {
    const created = (await cohortByName('Women who never paid'))!
    const { page, problems } = await openCohorts('dark')
    const row = page.getByTestId('cohort-list').locator(`tr[data-key="${created.id}"]`)
    await row.getByTestId('cohort-status').getByText('Ready').waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-list-dark.png') })

    // recalculating: the list follows the computation to its end
    await row.getByRole('button', { name: 'Recalculate Women who never paid' }).click()
    await eventually(async () => (await ui.server.call('GET', `/uba/api/cohort/${created.id}`, { headers })).body.status === 'success', 30_000)
    await row.getByTestId('cohort-status').getByText('Ready').waitFor()

    await row.click()
    await page.getByTestId('cohort-detail').waitFor()
    await page.getByTestId('members-table').waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-detail-dark.png'), fullPage: true })
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('members-export').click()])
    expect(download.suggestedFilename()).toBe('Women who never paid.jsonl')
    const file = readFileSync((await download.path())!, 'utf8')
    const columns = await page.getByTestId('members-table').locator('th').allTextContents()
    expect(columns[0]).toBe('User id')
    const meta = (await ui.server.call('GET', '/uba/api/meta/userProperties', { headers })).body as { id: string; name: string }[]
    const properties = columns.slice(1).map((label) => meta.find((p) => p.name === label)!.id)
    const api = await fetch(`${ui.server.url}/uba/api/cohort/users/export`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ cohortCode: created.code, properties }),
    })
    expect(file).toBe(await api.text())
    await page.getByTestId('export-status').getByText(`Exported ${en.format(file.trim().split('\n').length)} users`).waitFor()
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('duplicates a cohort into the builder (dark theme): the copy, created as it is, has the same rules and size', async () => {
    const original = (await cohortByName('Women who never paid'))!
    const { page, problems } = await openCohorts('dark', `#/cohorts?id=${original.id}`, original.name)
    await page.getByTestId('detail-duplicate').click()
    await page.getByRole('heading', { name: 'New cohort', level: 1 }).waitFor()
    expect(await page.getByTestId('cohort-name').inputValue()).toBe('Women who never paid (copy)')
    expect(await page.getByTestId('rule-0-0-property').textContent()).toContain('Gender')
    expect(await page.getByTestId('rule-1-0-event').textContent()).toContain('Pay')
    expect(await page.getByTestId('rule-1-0-days').inputValue()).toBe('90')
    expect(await page.getByTestId('between-0').locator('[aria-checked="true"]').textContent()).toContain('and not')
    await page.getByTestId('rule-1-0-filter').getByText('Order amount').waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-duplicate-dark.png') })
    await page.getByTestId('cohort-name').fill('Women who never paid, again')
    await page.getByTestId('cohort-name').press('Control+Enter')
    await page.getByTestId('cohort-detail').waitFor()
    await page.getByTestId('detail-status').getByText('Ready').waitFor({ timeout: 30_000 })
    const copy = (await cohortByName('Women who never paid, again'))!
    const [a, b] = await Promise.all([original.id, copy.id].map(async (id) => (await ui.server.call('GET', `/uba/api/cohort/${id}?needMore=true`, { headers })).body))
    expect(b.content).toEqual(a.content)
    expect(b.dynamic).toBe(a.dynamic)
    expect(b.userNumber).toBe(a.userNumber)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('creates a cohort from a file of user ids and shows how many matched', async () => {
    const ids = (await warehouseRows(ui.server, headers.appKey, 'SELECT xwho FROM profile_vd ORDER BY xwho LIMIT 3')).map((r) => String(r.xwho))
    const csv = fixture('vip.csv', ['xwho', ...ids, 'nobody-1', ids[0]].join('\n'))
    const { page, problems } = await openCohorts('light')
    await page.getByTestId('cohort-from-file').click()
    await page.getByTestId('file-cohort-file').setInputFiles(csv)
    expect(await page.getByTestId('file-cohort-name').inputValue()).toBe('vip')
    await page.getByTestId('file-cohort-name').fill('VIP list')
    await page.screenshot({ path: join(RESULTS, 'cohorts-file-dialog.png') })
    await page.getByTestId('file-cohort-create').click()
    await page.getByTestId('file-cohort-result').waitFor()
    expect(await page.getByTestId('file-users').textContent()).toBe('3')
    expect(await page.getByTestId('file-matched').textContent()).toBe('3')
    expect(await page.getByTestId('file-unmatched').textContent()).toBe('1')
    await page.screenshot({ path: join(RESULTS, 'cohorts-file-result.png') })
    await page.getByTestId('file-cohort-open').click()
    await page.getByTestId('cohort-detail').waitFor()
    expect(await page.getByTestId('detail-size').textContent()).toBe('3')
    await eventually(async () => (await page.getByTestId('member-link').allTextContents()).sort().join() === [...ids].sort().join())
    const api = await cohortByName('VIP list')
    expect((await ui.server.call('GET', `/uba/api/cohort/${api!.id}`, { headers })).body.userNumber).toBe(3)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('deletes after confirming, and shows the server’s refusal for a cohort of another account', async () => {
    const x = { xtoken: ui.server.creds.xtoken }
    expect((await ui.server.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'ann@example.com', name: 'Ann' } })).status).toBe(200)
    const rule = { ruleGroup: [{ relation: 'AND', rules: [{ type: 'user', expression: 'user.gender', function: 'EQ', params: ['male'] }] }] }
    const theirs = await ui.server.call('POST', '/uba/api/cohort?loginUser=ann@example.com', { headers, body: { name: 'Ann’s men', dynamic: 1, content: rule } })
    expect(theirs.status).toBe(200)
    const { page, problems } = await openCohorts('light')

    await page.getByTestId('cohort-list').locator(`tr[data-key="${theirs.body.id}"]`).getByRole('button', { name: 'Delete Ann’s men' }).click()
    const dialog = page.getByTestId('cohort-delete-dialog')
    await dialog.getByTestId('confirm-button').click()
    const refusal = await ui.server.call('DELETE', `/uba/api/cohort/${theirs.body.id}`, { headers })
    expect(refusal.status).toBe(400)
    await dialog.getByText(String(refusal.body.msg).slice(1, 40)).waitFor()
    await page.screenshot({ path: join(RESULTS, 'cohorts-delete-refused.png') })
    await dialog.getByRole('button', { name: 'Cancel' }).click()

    const mine = (await cohortByName('VIP list'))!
    await page.getByTestId('cohort-list').locator(`tr[data-key="${mine.id}"]`).getByRole('button', { name: 'Delete VIP list' }).click()
    await dialog.getByTestId('confirm-button').click()
    await eventually(async () => (await page.getByTestId('cohort-list').locator(`tr[data-key="${mine.id}"]`).count()) === 0)
    expect(await cohortByName('VIP list')).toBeUndefined()
    expect(await cohortByName('Ann’s men')).toBeDefined()
    expect(problems).toEqual([])
    await page.context().close()
  })
})

describe('cohort builder model', () => {
  const ref = (scope: 'event' | 'user', id: string, dataType: 'string' | 'number' = 'string') => ({ scope, id, dataType })

  it('writes windows and distinct counts as the API takes them, and reads them back unchanged', () => {
    const draft = newDraft()
    draft.name = 'Repeat buyers'
    draft.groups[0].rules = [{ ...newUserRule(), property: ref('user', 'age', 'number'), function: 'RANGE', params: [20, 30] }]
    const distinct = { ...newEventRule('pay'), aggregator: 'REMOVE_DUMPLICATE' as const, property: ref('event', 'payment_method'), function: 'GT' as const, params: [1] as (number | '')[] }
    const ago = { ...newEventRule('search'), window: { kind: 'ago' as const, from: 14, to: 7 }, function: 'RANGE' as const, params: [2, 5] as (number | '')[] }
    const dated = { ...newEventRule('$Anything'), window: { kind: 'between' as const, from: '2024-01-01', to: '2024-01-31' }, function: 'EQ' as const, params: [0] as (number | '')[] }
    draft.groups.push({ key: 'g2', relation: 'OR', rules: [distinct, ago, dated] })
    draft.between = ['AND_NOT']
    expect(checkDraft(draft)).toBeNull()
    const content = contentOf(draft)
    expect(content).toEqual({
      ruleGroup: [
        { relation: 'AND', rules: [{ type: 'user', expression: 'user.age', function: 'RANGE', params: [20, 30] }] },
        {
          relation: 'OR',
          rules: [
            { type: 'event', expression: 'event.pay.payment_method', aggregator: 'REMOVE_DUMPLICATE', function: 'GT', params: [1], eventRelativeTimeParam: '29,0,day' },
            { type: 'event', expression: 'event.search', aggregator: 'TOTAL_COUNT', function: 'RANGE', params: [2, 5], eventRelativeTimeParam: '14,7,day' },
            { type: 'event', expression: 'event.$Anything', aggregator: 'TOTAL_COUNT', function: 'EQ', params: [0], eventAbsoluteTimeParams: ['2024-01-01', '2024-01-31'] },
          ],
        },
      ],
      relations: ['AND_NOT'],
    })
    const back = draftFromContent({ name: 'Repeat buyers', dynamic: 1, content }, (e) => (e === 'user.age' ? 'number' : 'string'))
    expect(contentOf({ ...back, name: 'x' })).toEqual(content)
  })

  it('says what is missing, and where, before anything is sent', () => {
    const draft = newDraft()
    expect(checkDraft(draft)).toEqual({ field: 'name', message: 'Give the cohort a name.' })
    draft.name = 'x'
    draft.groups.push({ key: 'g', relation: 'AND', rules: [{ ...newEventRule('pay'), aggregator: 'REMOVE_DUMPLICATE' }] })
    draft.groups[0].rules = [{ ...newUserRule(), property: ref('user', 'gender'), function: 'EQ', params: ['female'] }]
    expect(checkDraft(draft)).toMatchObject({ group: 1, rule: 0, message: 'Pick the property whose distinct values are counted.' })
  })

  it('finds the rule a server path names', () => {
    expect(targetOf('content.ruleGroup[1].rules[0].function')).toEqual({ group: 1, rule: 0 })
    expect(targetOf('content.ruleGroup[2].relation')).toEqual({ group: 2 })
    expect(targetOf('content.relations')).toEqual({ between: 0 })
    expect(targetOf('content.relations[1]')).toEqual({ between: 1 })
    expect(targetOf('name')).toEqual({ field: 'name' })
    expect(localMessage('content.ruleGroup[1].rules[0].function: EQ does not apply', 'content.ruleGroup[1].rules[0].function')).toBe('EQ does not apply')
  })
})
