import { badParam } from '../../errors'
import { ignoreUnknown } from '../../ignored'
import { numeric, textual, word } from '../../lenient'
import { day } from '../../time/days'
import type { AnalysisEnv, AnalysisModule } from '../runner'
import type { SqlParams } from '../../../warehouse/dialect'

/**
 * The users behind one cell of an analysis: each analysis says what a cell's coordinates are
 * (`cell` in the body, every bad field a 400 naming `cell.<field>`) and finds exactly the users it
 * counted there, from the same SQL or the same path following as its counts, never a second
 * derivation. users.ts pages, exports and saves them.
 */

/** A select of the cell's users (one column: their distinct_id, each user once), or their ids. */
export type CellSelect = { sql: string; params: SqlParams } | { ids: number[] }

export interface CellModule<Req> {
  /** The fields of `cell`. */
  fields: string[]
  analysis: Pick<AnalysisModule<Req, unknown>, 'validate' | 'kind'>
  /** Checks the coordinates against the request (and the data where they name its rows) and selects the users. */
  select(env: AnalysisEnv, req: Req, cell: Cell): Promise<CellSelect>
}

/** The coordinates as sent, read field by field. */
export class Cell {
  constructor(
    readonly raw: Record<string, unknown>,
    allowed: string[],
  ) {
    ignoreUnknown(raw, allowed, 'cell')
  }

  has(name: string): boolean {
    return this.raw[name] !== undefined && this.raw[name] !== null
  }

  bad(name: string, message: string): Error {
    return badParam(`cell.${name}`, `cell.${name}: ${message}`)
  }

  /** A whole number in [min, max]; `fallback` when absent (undefined: required). */
  index(name: string, min: number, max: number, fallback?: number | null): number | null {
    if (!this.has(name)) {
      if (fallback === undefined) throw this.bad(name, 'is required')
      return fallback
    }
    const n = numeric(this.raw[name])
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw this.bad(name, `must be a whole number from ${min} to ${max}`)
    return n
  }

  /** One of `options` (any letter case); the first when absent. */
  choice<T extends string>(name: string, options: readonly T[]): T {
    if (!this.has(name)) return options[0]
    const value = word(this.raw[name], options)
    if (!options.includes(value as T)) throw this.bad(name, `must be ${options.join(' or ')}`)
    return value as T
  }

  /** A day yyyy-MM-dd, or null when absent. */
  day(name: string): string | null {
    if (!this.has(name)) return null
    try {
      return day(this.raw[name], `cell.${name}`)
    } catch {
      throw this.bad(name, 'must be a date yyyy-MM-dd')
    }
  }

  /** A row label as the answer writes it (text; a number is read as its text), or null when absent. */
  label(name: string): string | null {
    if (!this.has(name)) return null
    const value = textual(this.raw[name])
    if (typeof value !== 'string') throw this.bad(name, 'must be a label of the answer (text)')
    return value
  }

  /** A list of labels, one per breakdown (`count` of them). */
  labels(name: string, count: number): string[] {
    if (count === 0 && !this.has(name)) return []
    const value = this.raw[name]
    if (!Array.isArray(value) || value.length !== count) throw this.bad(name, `must be the row's byValue: a list of ${count} label${count === 1 ? '' : 's'}`)
    return value.map((v, i) => {
      const text = textual(v)
      if (typeof text !== 'string') throw badParam(`cell.${name}[${i}]`, `cell.${name}[${i}] must be a label (text)`)
      return text
    })
  }
}

/** `cell` of the body: required, an object. */
export function cellOf(body: Record<string, unknown>, allowed: string[]): Cell {
  const raw = body.cell
  if (raw === undefined || raw === null) throw badParam('cell', 'cell is required: the coordinates of one cell of the answer')
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badParam('cell', 'cell must be an object')
  return new Cell(raw as Record<string, unknown>, allowed)
}
