import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let other: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  const x = { xtoken: s.creds.xtoken }
  for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
    await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email } })
  }
  await s.call('POST', '/uba/manage/enterprise/projects', { headers: x, body: { appKey: 'other', name: 'Other' } })
  await eventually(async () => (await s.call('GET', '/uba/manage/enterprise/projects/other', { headers: x })).body.finish)
  const list = await s.call('GET', '/uba/manage/enterprise/projects', { headers: x })
  other = { appKey: 'other', token: list.body.find((p: any) => p.appKey === 'other').normalToken }
})
afterAll(() => s.stop())

const members = async (headers = s.project) =>
  (await s.call('GET', '/uba/manage/project/users', { headers })).body.map((m: any) => `${m.email}:${m.role}`)

describe('roles (4.2)', () => {
  it('lists the five seeded project roles', async () => {
    const res = await s.call('GET', '/uba/manage/project/roles', { headers: s.project })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { id: 2, name: 'admin' },
      { id: 3, name: 'product' },
      { id: 4, name: 'data analyst' },
      { id: 5, name: 'engineer' },
      { id: 6, name: 'regular member' },
    ])
  })
})

describe('members (4.2)', () => {
  it('adds members, then replaces the role of one already in the project', async () => {
    const add = await s.call('POST', '/uba/manage/project/users', { headers: s.project, body: { users: [{ email: 'a@example.com', role: 6 }, { email: 'b@example.com', role: 4 }] } })
    expect(add.body).toEqual({ success: 0 })
    expect(await members()).toEqual(['a@example.com:6', 'b@example.com:4'])
    await s.call('POST', '/uba/manage/project/users', { headers: s.project, body: { users: [{ email: 'a@example.com', role: 2 }] } })
    expect(await members()).toEqual(['a@example.com:2', 'b@example.com:4'])
  })

  it('keeps members per project: one project key does not see or change another', async () => {
    expect(await members(other)).toEqual([])
    await s.call('POST', '/uba/manage/project/users', { headers: other, body: { users: [{ email: 'c@example.com', role: 5 }] } })
    expect(await members(other)).toEqual(['c@example.com:5'])
    expect(await members()).toEqual(['a@example.com:2', 'b@example.com:4'])
  })

  it('answers 400 naming the unregistered e-mail, and adds none of the list', async () => {
    const res = await s.call('POST', '/uba/manage/project/users', {
      headers: s.project,
      body: { users: [{ email: 'c@example.com', role: 6 }, { email: 'stranger@example.com', role: 6 }] },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'stranger@example.com is not a registered account', data: ['users[1].email'] })
    expect(await members()).toEqual(['a@example.com:2', 'b@example.com:4'])
  })

  it.each([
    [{ users: [{ email: 'c@example.com', role: 99 }] }, ['users[0].role']],
    [{ users: [{ email: 'c@example.com' }] }, ['users[0].role']],
    [{ users: [] }, ['users']],
    [{}, ['users']],
    [{ users: [{ email: 'c@example.com', role: 'six' }] }, ['users[0].role']],
  ])('rejects %j with 400 naming %j', async (body, params) => {
    const res = await s.call('POST', '/uba/manage/project/users', { headers: s.project, body })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(params)
    expect(await members()).toEqual(['a@example.com:2', 'b@example.com:4'])
  })

  it('removes members given as emails, as email, or as a bare list', async () => {
    await s.call('POST', '/uba/manage/project/users', { headers: s.project, body: { users: [{ email: 'c@example.com', role: 6 }] } })
    const byEmails = await s.call('DELETE', '/uba/manage/project/users', { headers: s.project, body: { emails: ['a@example.com'] } })
    expect(byEmails.body).toEqual({ success: 0 })
    expect(await members()).toEqual(['b@example.com:4', 'c@example.com:6'])
    await s.call('DELETE', '/uba/manage/project/users', { headers: s.project, body: { email: ['b@example.com'] } })
    expect(await members()).toEqual(['c@example.com:6'])
    await s.call('DELETE', '/uba/manage/project/users', { headers: s.project, body: ['c@example.com'] })
    expect(await members()).toEqual([])
    expect(await members(other)).toEqual(['c@example.com:5'])
  })

  it('answers 400 for an e-mail that is not a member, and removes none of the list', async () => {
    await s.call('POST', '/uba/manage/project/users', { headers: s.project, body: { users: [{ email: 'a@example.com', role: 6 }] } })
    const res = await s.call('DELETE', '/uba/manage/project/users', { headers: s.project, body: { emails: ['a@example.com', 'b@example.com'] } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'b@example.com is not a member of this project', data: ['emails[1]'] })
    expect(await members()).toEqual(['a@example.com:6'])
    const empty = await s.call('DELETE', '/uba/manage/project/users', { headers: s.project, body: { emails: [] } })
    expect(empty.body.data).toEqual(['emails'])
    const none = await s.call('DELETE', '/uba/manage/project/users', { headers: s.project })
    expect(none.status).toBe(400)
    expect(none.body.data).toEqual(['emails'])
  })

  it('records loginUser as the operator of member changes', async () => {
    await s.call('POST', '/uba/manage/project/users?loginUser=a@example.com', { headers: s.project, body: { users: [{ email: 'b@example.com', role: 3 }] } })
    const a = s.app.ctx.meta.prepare("SELECT id FROM accounts WHERE email = 'a@example.com'").pluck().get()
    const log = s.app.ctx.meta.prepare("SELECT operator_id, target FROM operation_log WHERE action = 'member.set' ORDER BY id DESC LIMIT 1").get()
    expect(log).toEqual({ operator_id: a, target: 'b@example.com:3' })
  })
})
