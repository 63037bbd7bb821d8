import { asFlag, flag, type Stored } from '../../store/meta/flags'
import type { DomainContext, Operator } from '../context'
import { alreadyExists, badParam, existsButDisabled } from '../errors'
import { recordOperation } from '../project/operations'
import { hashPassword } from './secrets'

export interface NewAccount {
  email: string
  userName?: string
  name?: string
  password?: string
  phone?: string
  department?: string
}

interface AccountRow {
  id: number
  email: string
  enabled: boolean
}

function findByEmail(ctx: DomainContext, email: string): AccountRow | undefined {
  const row = ctx.meta.prepare('SELECT id, email, enabled FROM accounts WHERE email = ?').get(email) as Stored<AccountRow> | undefined
  return row && { ...row, enabled: flag(row.enabled) }
}

/**
 * Registers an enterprise account (2.2) with the role "platform member". E-mail, user name and
 * phone are each unique (50101; 50102 when the account holding it is disabled); a password is kept only as a salted hash.
 */
export function createAccount(ctx: DomainContext, input: NewAccount, operator: Operator | null): { userId: number; email: string } {
  const unique: [keyof NewAccount, string][] = [
    ['email', 'email'],
    ['userName', 'user_name'],
    ['phone', 'phone'],
  ]
  for (const [field, column] of unique) {
    const value = input[field]
    if (value === undefined) continue
    const taken = ctx.meta.prepare(`SELECT enabled FROM accounts WHERE ${column} = ?`).get(value) as Stored<Pick<AccountRow, 'enabled'>> | undefined
    if (taken && !flag(taken.enabled)) throw existsButDisabled(`an account with this ${field} exists but is disabled`)
    if (taken) throw alreadyExists(`an account with this ${field} already exists`)
  }
  const userId = ctx.meta.transaction(() => {
    const result = ctx.meta
      .prepare(
        `INSERT INTO accounts (email, user_name, name, phone, department, password_hash, create_time)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.email,
        input.userName ?? null,
        input.name ?? null,
        input.phone ?? null,
        input.department ?? null,
        input.password === undefined ? null : hashPassword(input.password),
        Date.now(),
      )
    recordOperation(ctx.meta, operator, 'account.create', null, input.email)
    return Number(result.lastInsertRowid)
  })()
  return { userId, email: input.email }
}

/** Enables or disables an account; a disabled account keeps its record but cannot act. */
export function setActivation(ctx: DomainContext, email: string, activation: boolean, operator: Operator | null): void {
  const account = findByEmail(ctx, email)
  if (!account) throw badParam('email', `no account has the e-mail ${email}`)
  ctx.meta.transaction(() => {
    ctx.meta.prepare('UPDATE accounts SET enabled = ? WHERE id = ?').run(asFlag(activation), account.id)
    recordOperation(ctx.meta, operator, activation ? 'account.enable' : 'account.disable', null, account.email)
  })()
}

/**
 * Resolves `loginUser` (part 1 rule 3): it must be an existing account's e-mail (400), and that
 * account must be enabled (501/50102).
 */
export function resolveOperator(ctx: DomainContext, loginUser: string | undefined): Operator | null {
  if (loginUser === undefined) return null
  const account = findByEmail(ctx, loginUser)
  if (!account) throw badParam('loginUser', `loginUser ${loginUser} is not a registered account`)
  if (!account.enabled) throw existsButDisabled(`the account ${loginUser} is disabled`)
  return { id: account.id, email: account.email }
}
