import type { WarehouseInput } from '../api/platform'

/** The "Where events are stored" fields of the new-project dialog, as typed. */
export interface WarehouseForm {
  engine: 'duckdb' | 'clickhouse'
  url: string
  database: string
  user: string
  password: string
}

export function emptyWarehouseForm(): WarehouseForm {
  return { engine: 'duckdb', url: '', database: '', user: '', password: '' }
}

// the server's rules (route schema of POST /uba/manage/enterprise/projects, `warehouse`)
const DATABASE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const URL_START = /^https?:\/\/[^/\s]+\/?$/

/** Why the fields cannot be sent yet, in a sentence; '' when they can (the server checks them again). */
export function warehouseProblem(form: WarehouseForm): string {
  if (form.engine === 'duckdb') return ''
  if (!form.url) return 'Give the server address, e.g. http://HOST:8123.'
  if (!URL_START.test(form.url)) return 'The address is http:// or https://, a host and a port, nothing after.'
  if (!form.database) return 'Give the database the project\'s events go in.'
  if (!DATABASE.test(form.database)) return 'The database is a plain name: letters, digits and _, not starting with a digit.'
  return ''
}

/** The request's `warehouse`; undefined for the embedded default. */
export function warehouseInputOf(form: WarehouseForm): WarehouseInput | undefined {
  if (form.engine === 'duckdb') return undefined
  return { engine: 'clickhouse', url: form.url, database: form.database, ...(form.user ? { user: form.user } : {}), ...(form.password ? { password: form.password } : {}) }
}
