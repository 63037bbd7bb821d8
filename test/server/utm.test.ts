import { beforeAll, describe, expect, it } from 'vitest'
import { dataVersion } from '../../src-main/domain/project/dataVersion'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import type { TestServer } from '../helpers/server'

const BASE = '/svc/uba/api/operations/utm'
const landing = { utmCampaign: 'spring sale', utmMedium: 'cpc', utmSource: 'baidu' }

/* Campaigns of a DuckDB project and of a ClickHouse one: the same requests and answers (their use in analyses: test/analysis/utm.test.ts). */
describe.each(ENGINES)('utm campaigns, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let other: Project
  const account: Record<string, number> = {}

  beforeAll(async () => {
    s = host.server
    const x = { xtoken: s.creds.xtoken }
    const accounts = [
      { email: 'a@example.com', userName: 'alice', name: 'Alice Chen', phone: '+86 13800000000' },
      { email: 'b@example.com' },
    ]
    for (const body of accounts) account[body.email] = (await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body })).body.userId
    p = await host.project('utm', 'UTC')
    other = await host.project('other', 'UTC')
    await s.call('POST', BASE, { headers: other, body: { pageUrl: 'https://other.example.com/', ...landing } })
  })

  const create = (body: unknown, query = '', headers: Record<string, string> = p) => s.call('POST', `${BASE}${query}`, { headers, body })
  const read = (id: number | string, query = '', headers: Record<string, string> = p) => s.call('GET', `${BASE}/${id}${query}`, { headers })
  const drop = (id: number | string, query = '') => s.call('DELETE', `${BASE}/drop/${id}${query}`, { headers: p })
  const campaignCount = (appKey = p.appKey) => s.app.ctx.meta.prepare('SELECT count(*) FROM campaigns WHERE app_key = ?').pluck().get(appKey)
  const lastOperation = () => s.app.ctx.meta.prepare("SELECT operator_id, action, target FROM operation_log WHERE action LIKE 'campaign.%' ORDER BY id DESC LIMIT 1").get()

  describe('create and read a campaign (4.9, 2.4)', () => {
    it('answers a numeric campaignId, 1, 2, ... in the project, and reads back every field of 2.4 with its type', async () => {
      const before = Date.now()
      const res = await create({ pageUrl: 'https://shop.example.com/landing', ...landing, utmContent: 'banner', utmTerm: 'shoes', remarks: 'spring push', utmType: 'web' }, '?loginUser=a@example.com&username=Promo%20Team')
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: 0, campaignId: 1 })
      expect((await create({ pageUrl: 'https://shop.example.com/landing', ...landing })).body).toEqual({ success: 0, campaignId: 2 })

      const got = await read(1, '?loginUser=a@example.com')
      expect(got.status).toBe(200)
      const url = 'https://shop.example.com/landing?campaign_id=1&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu&utm_content=banner&utm_term=shoes'
      expect(got.body).toEqual({
        id: expect.any(Number),
        campaignId: '1',
        utmType: 'web',
        callbackUrl: null,
        checkUrl: null,
        checkShort: null,
        checkQrcode: null,
        qrcode: null,
        createName: 'Promo Team',
        loginName: 'alice',
        email: 'a@example.com',
        phone: '+86 13800000000',
        batchNum: null,
        project: expect.any(String),
        originUrl: url,
        pageUrl: 'https://shop.example.com/landing',
        utmCampaign: 'spring sale',
        utmMedium: 'cpc',
        utmSource: 'baidu',
        utmContent: 'banner',
        utmTerm: 'shoes',
        url,
        shortUrl: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
        remarks: 'spring push',
        appKey: p.appKey,
        userId: account['a@example.com'],
        status: 1,
        createTime: expect.any(Number),
        updateTime: expect.any(Number),
        canOperated: 1,
        uniqueSign: expect.stringMatching(/^[0-9a-f]{32}$/),
      })
      expect(got.body.project).toBe(s.app.ctx.meta.prepare('SELECT cname FROM projects WHERE app_key = ?').pluck().get(p.appKey))
      expect(got.body.createTime).toBeGreaterThanOrEqual(before)
      expect(got.body.createTime).toBeLessThanOrEqual(Date.now())
      expect(got.body.updateTime).toBe(got.body.createTime)

      // JSON types exactly as the table of 2.4 says
      const types: Record<string, string[]> = {
        id: ['number'], campaignId: ['string'], utmType: ['string'], pageUrl: ['string'], utmCampaign: ['string'], utmMedium: ['string'],
        utmSource: ['string'], utmContent: ['string'], utmTerm: ['string'], url: ['string'], shortUrl: ['string'], remarks: ['string'],
        appKey: ['string'], userId: ['number'], status: ['number'], createTime: ['number'], updateTime: ['number'], canOperated: ['number'], uniqueSign: ['string'],
      }
      for (const f of ['callbackUrl', 'checkUrl', 'checkShort', 'checkQrcode', 'qrcode', 'createName', 'loginName', 'email', 'phone', 'batchNum', 'project', 'originUrl']) types[f] = ['string', 'object']
      expect(Object.keys(got.body).sort()).toEqual(Object.keys(types).sort())
      for (const [field, allowed] of Object.entries(types)) {
        const value = got.body[field]
        expect(allowed, field).toContain(typeof value)
        if (typeof value === 'object') expect(value, field).toBeNull()
      }
    })

    it('keeps an existing query string and puts the parameters before the fragment', async () => {
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/p?id=7&ref=home#/detail?x=1', ...landing, utmContent: 'a&b=c', utmTerm: '鞋' })).body
      expect((await read(campaignId)).body.url).toBe(
        `https://shop.example.com/p?id=7&ref=home&campaign_id=${campaignId}&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu&utm_content=a%26b%3Dc&utm_term=%E9%9E%8B#/detail?x=1`,
      )
    })

    it('leaves out empty optional parameters and reads them back as empty strings', async () => {
      const { campaignId } = (await create({ pageUrl: 'http://shop.example.com/#home', ...landing, utmContent: '' })).body
      const got = (await read(campaignId)).body
      expect(got.url).toBe(`http://shop.example.com/?campaign_id=${campaignId}&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu#home`)
      expect(got).toMatchObject({ utmContent: '', utmTerm: '', remarks: '', utmType: '', pageUrl: 'http://shop.example.com/#home' })
    })

    it('replaces campaign parameters already in pageUrl, keeping the others as written', async () => {
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/x?utm_source=old&k=a+b&campaign_id=99&', ...landing })).body
      expect((await read(campaignId)).body.url).toBe(`https://shop.example.com/x?k=a+b&campaign_id=${campaignId}&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu`)
    })

    it('gives every campaign its own short code, which redirects to the long link', async () => {
      const codes = new Set<string>()
      for (let i = 0; i < 20; i++) {
        const { campaignId } = (await create({ pageUrl: `https://shop.example.com/item/${i}`, ...landing })).body
        codes.add((await read(campaignId)).body.shortUrl)
      }
      expect(codes.size).toBe(20)
      const got = (await read(1)).body
      const res = await fetch(`${s.url}/t/${got.shortUrl}`, { redirect: 'manual' })
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe(got.url)
      const unknown = await fetch(`${s.url}/t/zzzzzzzz`, { redirect: 'manual' })
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toEqual({ code: 404, msg: 'no active campaign has this short link', data: null })
    })

    it('records loginUser as creator and operator, and canOperated says whether the caller created it', async () => {
      const byB = (await create({ pageUrl: 'https://shop.example.com/b', ...landing }, '?loginUser=b@example.com')).body.campaignId
      expect(lastOperation()).toEqual({ operator_id: account['b@example.com'], action: 'campaign.create', target: String(byB) })
      expect((await read(byB, '?loginUser=b@example.com')).body).toMatchObject({ createName: 'b@example.com', loginName: 'b@example.com', email: 'b@example.com', phone: null, userId: account['b@example.com'], canOperated: 1 })
      expect((await read(byB)).body.canOperated).toBe(0)
      expect((await read(byB, '?loginUser=a@example.com')).body.canOperated).toBe(0)

      const byA = (await create({ pageUrl: 'https://shop.example.com/a', ...landing }, '?loginUser=a@example.com')).body.campaignId
      expect((await read(byA)).body.createName).toBe('Alice Chen')

      const byApi = (await create({ pageUrl: 'https://shop.example.com/api', ...landing }, '?username=Nightly%20script')).body.campaignId
      expect(lastOperation()).toEqual({ operator_id: null, action: 'campaign.create', target: String(byApi) })
      expect((await read(byApi)).body).toMatchObject({ createName: 'Nightly script', loginName: null, email: null, phone: null, userId: 0, canOperated: 1 })
      expect((await read(byApi, '?loginUser=a@example.com')).body.canOperated).toBe(0)
    })

    it('gives equal uniqueSign to campaigns with the same page and utm values only', async () => {
      const sign = async (body: Record<string, unknown>) => (await read((await create(body)).body.campaignId)).body.uniqueSign
      const first = await sign({ pageUrl: 'https://shop.example.com/same', ...landing })
      expect(await sign({ pageUrl: 'https://shop.example.com/same', ...landing, remarks: 'again' })).toBe(first)
      expect(await sign({ pageUrl: 'https://shop.example.com/same', ...landing, utmTerm: 'x' })).not.toBe(first)
    })

    it('numbers campaigns per project, and a project key reads only its own campaigns', async () => {
      const mine = Number(campaignCount())
      expect(mine).toBeGreaterThan(20)
      const res = await read(mine, '', other)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, msg: `no campaign has the id ${mine}`, data: ['campaignId'] })
      expect((await read(1, '', other)).body).toMatchObject({ pageUrl: 'https://other.example.com/', appKey: 'other' })
      expect((await read(1)).body).toMatchObject({ pageUrl: 'https://shop.example.com/landing', appKey: p.appKey })
    })

    it('percent-encodes other characters than ASCII in the redirect, and keeps them in the record', async () => {
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/鞋/新品', ...landing })).body
      const got = (await read(campaignId)).body
      expect(got.url).toBe(`https://shop.example.com/鞋/新品?campaign_id=${campaignId}&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu`)
      const res = await fetch(`${s.url}/t/${got.shortUrl}`, { redirect: 'manual' })
      expect(res.headers.get('location')).toBe(`https://shop.example.com/%E9%9E%8B/%E6%96%B0%E5%93%81?campaign_id=${campaignId}&utm_campaign=spring%20sale&utm_medium=cpc&utm_source=baidu`)
    })

    it.each([
      [{ utmCampaign: 'a', utmMedium: 'b', utmSource: 'c' }, ['pageUrl']],
      [{ pageUrl: 'ftp://shop.example.com/a', ...landing }, ['pageUrl']],
      [{ pageUrl: 'shop.example.com/a', ...landing }, ['pageUrl']],
      [{ pageUrl: 'http:shop.example.com', ...landing }, ['pageUrl']],
      [{ pageUrl: 'https://shop.example.com/a b', ...landing }, ['pageUrl']],
      [{ pageUrl: 'https://?x=1', ...landing }, ['pageUrl']],
      [{ pageUrl: `https://shop.example.com/${'x'.repeat(2000)}`, ...landing }, ['pageUrl']],
      [{ pageUrl: 'https://shop.example.com', utmMedium: 'b', utmSource: 'c' }, ['utmCampaign']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmSource: '' }, ['utmSource']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmMedium: '   ' }, ['utmMedium']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmMedium: ['cpc'] }, ['utmMedium']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmCampaign: 'a\nb' }, ['utmCampaign']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmContent: 'x'.repeat(101) }, ['utmContent']],
      [{ pageUrl: 'https://shop.example.com', ...landing, utmTerm: null }, ['utmTerm']],
      [{ pageUrl: 'https://shop.example.com', ...landing, remarks: 'x'.repeat(201) }, ['remarks']],
    ])('refuses %j with 400 naming %j, and writes nothing', async (body, params) => {
      const count = campaignCount()
      const res = await create(body)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe(400)
      expect(res.body.data).toEqual(params)
      expect(campaignCount()).toBe(count)
    })

    it('refuses a bad username or loginUser, and a missing or non-JSON body', async () => {
      const count = campaignCount()
      const body = { pageUrl: 'https://shop.example.com', ...landing }
      expect((await create(body, '?username=')).body.data).toEqual(['username'])
      const unknown = await create(body, '?loginUser=nobody@example.com')
      expect(unknown.status).toBe(400)
      expect(unknown.body.data).toEqual(['loginUser'])
      expect((await s.call('POST', BASE, { headers: p })).status).toBe(400)
      const text = await s.call('POST', BASE, { headers: { ...p, 'content-type': 'application/json' }, rawBody: 'pageUrl=x' })
      expect(text.status).toBe(415)
      expect(campaignCount()).toBe(count)
    })

    it('answers 400 naming campaignId for an unknown or malformed id, and 401 without credentials', async () => {
      for (const id of ['999999', 'abc', '0', '1.5']) {
        const res = await read(id)
        expect(res.status, id).toBe(400)
        expect(res.body.data, id).toEqual(['campaignId'])
      }
      expect((await s.call('GET', `${BASE}/1`)).status).toBe(401)
      expect((await s.call('POST', BASE, { body: { pageUrl: 'https://shop.example.com', ...landing } })).status).toBe(401)
    })

    it('changes no analysis data version when campaigns are created or deleted', async () => {
      const version = dataVersion(s.app.ctx.meta, p.appKey)
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/v', ...landing })).body
      await drop(campaignId)
      expect(dataVersion(s.app.ctx.meta, p.appKey)).toBe(version)
    })
  })

  describe('delete a campaign (logical deletion)', () => {
    it('sets status 0 and keeps the record readable; the short link stops resolving', async () => {
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/gone', ...landing })).body
      const before = (await read(campaignId)).body
      const res = await drop(campaignId, '?loginUser=a@example.com')
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: 0 })
      expect(lastOperation()).toEqual({ operator_id: account['a@example.com'], action: 'campaign.delete', target: String(campaignId) })
      const after = (await read(campaignId)).body
      expect(after).toEqual({ ...before, status: 0, updateTime: expect.any(Number) })
      expect(after.updateTime).toBeGreaterThanOrEqual(before.updateTime)
      expect(s.app.ctx.meta.prepare('SELECT status FROM campaigns WHERE app_key = ? AND campaign_id = ?').pluck().get(p.appKey, campaignId)).toBe(0)
      expect((await fetch(`${s.url}/t/${before.shortUrl}`, { redirect: 'manual' })).status).toBe(404)
    })

    it('answers 400 naming campaignId when deleting twice or an unknown campaign, and changes nothing', async () => {
      const { campaignId } = (await create({ pageUrl: 'https://shop.example.com/twice', ...landing })).body
      await drop(campaignId)
      const updated = (await read(campaignId)).body.updateTime
      const again = await drop(campaignId)
      expect(again.status).toBe(400)
      expect(again.body).toEqual({ code: 400, msg: `campaign ${campaignId} is already deleted`, data: ['campaignId'] })
      expect((await read(campaignId)).body.updateTime).toBe(updated)
      const unknown = await drop(999999)
      expect(unknown.body).toEqual({ code: 400, msg: 'no campaign has the id 999999', data: ['campaignId'] })
      expect((await drop('x')).body.data).toEqual(['campaignId'])
    })
  })
})
