import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyPassword } from '../../src-main/domain/platform/secrets'
import { startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let x: Record<string, string>

beforeAll(async () => {
  s = await startTestServer()
  x = { xtoken: s.creds.xtoken }
})
afterAll(() => s.stop())

const account = (email: string) => s.app.ctx.meta.prepare('SELECT * FROM accounts WHERE email = ?').get(email) as any

describe('enterprise accounts (4.1, 2.2)', () => {
  it('registers an account as platform member and keeps only a salted hash of the password', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/accounts', {
      headers: x,
      body: { email: 'ana@example.com', userName: 'ana', name: 'Ana Lyst', password: 'correct horse', phone: '+44 20 7946 0000', department: 'Growth' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ userId: expect.any(Number), email: 'ana@example.com' })
    const row = account('ana@example.com')
    expect(row).toMatchObject({ id: res.body.userId, user_name: 'ana', name: 'Ana Lyst', department: 'Growth', platform_role: 'platform member', enabled: 1 })
    expect(row.password_hash).not.toContain('correct horse')
    expect(row.password_hash).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/)
    expect(verifyPassword('correct horse', row.password_hash)).toBe(true)
    expect(verifyPassword('wrong horse', row.password_hash)).toBe(false)
  })

  it('salts: the same password hashes differently for two accounts', async () => {
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'salt1@example.com', password: 'samepass' } })
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'salt2@example.com', password: 'samepass' } })
    expect(account('salt1@example.com').password_hash).not.toBe(account('salt2@example.com').password_hash)
  })

  it('takes the password as optional', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'nopass@example.com' } })
    expect(res.status).toBe(200)
    expect(account('nopass@example.com').password_hash).toBeNull()
  })

  it.each([
    [{ email: 'ANA@example.com' }, 'an account with this email already exists'],
    [{ email: 'other@example.com', userName: 'ana' }, 'an account with this userName already exists'],
    [{ email: 'other@example.com', phone: '+44 20 7946 0000' }, 'an account with this phone already exists'],
  ])('answers 501/50101 when %j is taken', async (body, msg) => {
    const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body })
    expect(res.status).toBe(501)
    expect(res.body).toEqual({ code: 50101, msg, data: null })
    expect(account('other@example.com')).toBeUndefined()
  })

  it.each([
    [{}, ['email']],
    [{ email: 'not-an-email' }, ['email']],
    [{ email: 'p@example.com', password: '123' }, ['password']],
    [{ email: 'p@example.com', phone: 'call me' }, ['phone']],
    [{ email: 42 }, ['email']],
  ])('rejects %j with 400 naming %j', async (body, params) => {
    const res = await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(params)
    expect(account('p@example.com')).toBeUndefined()
  })
})

describe('activation and loginUser (part 1 rule 3)', () => {
  it('disables an account: it can no longer be loginUser (501/50102); enabling restores it', async () => {
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'dora@example.com' } })
    const off = await s.call('POST', '/uba/manage/enterprise/accounts/activation?email=dora@example.com', { headers: x, body: { activation: false } })
    expect(off.body).toEqual({ success: 0 })
    expect(account('dora@example.com').enabled).toBe(0)

    const refused = await s.call('POST', '/uba/manage/enterprise/projects?loginUser=dora@example.com', { headers: x, body: { name: 'ByDora' } })
    expect(refused.status).toBe(501)
    expect(refused.body).toEqual({ code: 50102, msg: 'the account dora@example.com is disabled', data: null })
    expect(s.app.ctx.meta.prepare("SELECT count(*) FROM projects WHERE cname = 'ByDora'").pluck().get()).toBe(0)

    await s.call('POST', '/uba/manage/enterprise/accounts/activation?email=dora@example.com', { headers: x, body: { activation: true } })
    const ok = await s.call('POST', '/uba/manage/enterprise/projects?loginUser=dora@example.com', { headers: x, body: { appKey: 'bydora', name: 'ByDora' } })
    expect(ok.status).toBe(200)
    await s.app.ctx.background.idle()
  })

  it('records loginUser as the operator and as the project owner; the API owns objects made without it', async () => {
    const dora = account('dora@example.com')
    const project = s.app.ctx.meta.prepare("SELECT created_by FROM projects WHERE app_key = 'bydora'").get() as any
    expect(project.created_by).toBe(dora.id)
    const log = s.app.ctx.meta.prepare("SELECT operator_id FROM operation_log WHERE action = 'project.create' AND app_key = 'bydora'").get() as any
    expect(log.operator_id).toBe(dora.id)
    const byApi = s.app.ctx.meta.prepare('SELECT created_by FROM projects WHERE app_key = ?').get(s.project.appKey) as any
    expect(byApi.created_by).toBeNull()
  })

  it('lists only the projects of the loginUser when one is given', async () => {
    const res = await s.call('GET', '/uba/manage/enterprise/projects?loginUser=dora@example.com', { headers: x })
    expect(res.body.map((p: any) => p.appKey)).toEqual(['bydora'])
    const all = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
    expect(all.body.map((p: any) => p.appKey)).toEqual([s.project.appKey, 'bydora'])
  })

  it('answers 400 naming loginUser when it is not a registered e-mail', async () => {
    const res = await s.call('POST', '/uba/manage/enterprise/projects?loginUser=ghost@example.com', { headers: x, body: { name: 'Ghost' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'loginUser ghost@example.com is not a registered account', data: ['loginUser'] })
  })

  it.each([
    ['?email=nobody@example.com', { activation: true }, ['email']],
    ['', { activation: true }, ['email']],
    ['?email=dora@example.com', {}, ['activation']],
    ['?email=dora@example.com', { activation: 'yes' }, ['activation']],
  ])('activation%s with %j is a 400 naming %j', async (query, body, params) => {
    const res = await s.call('POST', `/uba/manage/enterprise/accounts/activation${query}`, { headers: x, body })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(params)
    expect(account('dora@example.com').enabled).toBe(1)
  })
})
