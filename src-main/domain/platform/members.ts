import { flag, type Stored } from '../../store/meta/flags'
import type { DomainContext, Operator } from '../context'
import { badParam } from '../errors'
import { recordOperation } from '../project/operations'

export interface Role {
  id: number
  name: string
}

export interface Member {
  email: string
  userName: string | null
  name: string | null
  role: number
  roleName: string
  enabled: boolean
}

export function listRoles(ctx: DomainContext): Role[] {
  return ctx.meta.prepare('SELECT id, name FROM roles ORDER BY id').all() as Role[]
}

export function listMembers(ctx: DomainContext, appKey: string): Member[] {
  const rows = ctx.meta
    .prepare(
      `SELECT a.email, a.user_name AS userName, a.name, m.role_id AS role, r.name AS roleName, a.enabled
       FROM project_members m JOIN accounts a ON a.id = m.account_id JOIN roles r ON r.id = m.role_id
       WHERE m.app_key = ? ORDER BY a.email`,
    )
    .all(appKey) as Stored<Member>[]
  return rows.map((r) => ({ ...r, enabled: flag(r.enabled) }))
}

function accountId(ctx: DomainContext, email: string): number | undefined {
  const row = ctx.meta.prepare('SELECT id FROM accounts WHERE email = ?').get(email) as { id: number } | undefined
  return row?.id
}

/**
 * Adds accounts to the project or replaces their role. Every entry is checked first (registered
 * e-mail, known role), so a bad entry changes nothing.
 */
export function addMembers(ctx: DomainContext, appKey: string, users: { email: string; role: number }[], operator: Operator | null): void {
  const known = new Set(listRoles(ctx).map((r) => r.id))
  const resolved = users.map((u, i) => {
    const id = accountId(ctx, u.email)
    if (id === undefined) throw badParam(`users[${i}].email`, `${u.email} is not a registered account`)
    if (!known.has(u.role)) throw badParam(`users[${i}].role`, `role ${u.role} does not exist`)
    return { id, role: u.role, email: u.email }
  })
  ctx.meta.transaction(() => {
    const upsert = ctx.meta.prepare(
      `INSERT INTO project_members (app_key, account_id, role_id) VALUES (?, ?, ?)
       ON CONFLICT (app_key, account_id) DO UPDATE SET role_id = excluded.role_id`,
    )
    for (const u of resolved) {
      upsert.run(appKey, u.id, u.role)
      recordOperation(ctx.meta, operator, 'member.set', appKey, `${u.email}:${u.role}`)
    }
  })()
}

/** Removes members; an e-mail that is not a member of the project is a 400 and removes nothing. */
export function removeMembers(ctx: DomainContext, appKey: string, emails: string[], field: string, operator: Operator | null): void {
  const isMember = ctx.meta.prepare('SELECT 1 FROM project_members WHERE app_key = ? AND account_id = ?')
  const ids = emails.map((email, i) => {
    const id = accountId(ctx, email)
    if (id === undefined) throw badParam(`${field}[${i}]`, `${email} is not a registered account`)
    if (!isMember.get(appKey, id)) throw badParam(`${field}[${i}]`, `${email} is not a member of this project`)
    return id
  })
  ctx.meta.transaction(() => {
    const remove = ctx.meta.prepare('DELETE FROM project_members WHERE app_key = ? AND account_id = ?')
    ids.forEach((id, i) => {
      remove.run(appKey, id)
      recordOperation(ctx.meta, operator, 'member.remove', appKey, emails[i])
    })
  })()
}
