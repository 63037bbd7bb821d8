import { randomBytes } from 'node:crypto'
import { quoteString } from './literal'
import { quoteName } from './bound'
import { dropOwnStaleLock } from './commitLock'

/**
 * What a transaction means on ClickHouse, which has none: rows written inside it to a table that
 * existed before go to a staging table of the same structure (`_uba_stage_…`), invisible to
 * queries of that table, and are moved into place when the work succeeds:
 * - rows of one partition of one table: `ALTER TABLE t ATTACH PARTITION ID … FROM stage`, which
 *   adds the staged parts in one step (queries see all of them or none);
 * - rows of several partitions or tables: a copy of each table is made from its parts (hard
 *   links: `REPLACE PARTITION … FROM`, no data is copied), the staged parts are attached to the
 *   copies, and one `RENAME TABLE t TO old, copy TO t, …` puts every copy in place at once.
 * On failure the staging tables are dropped and nothing was visible. A crash leaves `_uba_*`
 * tables, which `dropLeftovers` removes; the live tables are never half-written.
 */

/** How the staging runs its statements (on the warehouse's connection: query ids, interrupt). */
export interface Exec {
  command(sql: string): Promise<void>
  rows(sql: string): Promise<unknown[][]>
}

export const LEFTOVER_PREFIX = '_uba_'
/** What the staging names its tables (`_uba_<kind>_<folder>_<random>_<table>`). */
const KINDS = ['stage', 'repl', 'next', 'old']

/** A new table name of this kind for `table`, carrying the data folder's id: see `dropLeftovers`. */
function fresh(kind: string, folder: string, table: string): string {
  return `${LEFTOVER_PREFIX}${kind}_${folder}_${randomBytes(6).toString('hex')}_${table}`.slice(0, 200)
}

/** The writes of one transaction or snapshot. */
export class Staging {
  /** table -> its staging table, made at the first write. */
  readonly stages = new Map<string, string>()
  /** Tables created inside (written directly; dropped on failure). */
  readonly created = new Set<string>()
  /** table -> a table holding the new rows of some of its partitions, which replace them at the commit. */
  readonly replacements = new Map<string, { stage: string; ids: Set<string> }>()
  private readonly targets = new Map<string, Promise<string>>()
  private readonly engines = new Map<string, string | null>()

  constructor(
    private readonly exec: Exec,
    private readonly database: string,
    /** The data folder's id (8 hex digits), in every name this staging makes. */
    private readonly folder: string,
  ) {}

  private async engineOf(table: string): Promise<string | null> {
    if (!this.engines.has(table)) {
      const rows = await this.exec.rows(`SELECT engine FROM system.tables WHERE database = ${quoteString(this.database)} AND name = ${quoteString(table)}`)
      this.engines.set(table, rows.length ? String(rows[0][0]) : null)
    }
    return this.engines.get(table)!
  }

  /**
   * Where rows written to `table` go: its staging table when the table existed before and is a
   * MergeTree (partitions can be attached), else the table itself.
   */
  target(table: string): Promise<string> {
    // one staging table per table, also when two writes of the work start at once
    let pending = this.targets.get(table)
    if (!pending) {
      pending = this.stageOf(table)
      this.targets.set(table, pending)
      pending.catch(() => this.targets.delete(table))
    }
    return pending
  }

  /**
   * A table made like `table` whose rows replace the partitions `ids` of `table` at the commit
   * (a partition it holds no row of is emptied); the caller fills it (its rows must be of those
   * partitions). Rows staged for `table` as well are added after the replacement.
   */
  async replacement(table: string, ids: string[]): Promise<string> {
    if (this.replacements.has(table)) throw new Error(`the partitions of ${table} are already being replaced in this transaction`)
    const stage = fresh('repl', this.folder, table)
    await this.exec.command(`CREATE TABLE ${quoteName(stage)} AS ${quoteName(table)}`)
    this.replacements.set(table, { stage, ids: new Set(ids) })
    return stage
  }

  /** Whether `name` is one of this staging's own tables (written directly). */
  private owns(name: string): boolean {
    return [...this.stages.values()].includes(name) || [...this.replacements.values()].some((r) => r.stage === name)
  }

  private async stageOf(table: string): Promise<string> {
    if (this.owns(table)) return table
    if (this.created.has(table) || !/MergeTree$/.test((await this.engineOf(table)) ?? '')) return table
    const stage = fresh('stage', this.folder, table)
    await this.exec.command(`CREATE TABLE ${quoteName(stage)} AS ${quoteName(table)}`)
    this.stages.set(table, stage)
    return stage
  }

  /** Drops everything this staging made: staging tables, and on failure the tables created inside. */
  async discard(failed: boolean): Promise<void> {
    const names = [...this.stages.values(), ...[...this.replacements.values()].map((r) => r.stage), ...(failed ? this.created : [])]
    for (const name of names) await this.exec.command(`DROP TABLE IF EXISTS ${quoteName(name)}`).catch(() => undefined)
    this.stages.clear()
    this.replacements.clear()
    this.targets.clear()
  }

  /** Active partition ids of tables, by table. */
  private async partitions(tables: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(tables.map((t) => [t, []]))
    if (tables.length === 0) return out
    const rows = await this.exec.rows(`SELECT table, partition_id FROM system.parts
      WHERE database = ${quoteString(this.database)} AND table IN (${tables.map(quoteString).join(', ')}) AND active
      GROUP BY table, partition_id ORDER BY table, partition_id`)
    for (const [table, id] of rows) out.get(String(table))!.push(String(id))
    return out
  }

  /** Adds to the staging table the columns its table gained since it was made (another writer's properties). */
  private async alignColumns(table: string, stage: string): Promise<void> {
    // 18.16's system.columns has no position: each table's rows come in column order
    const columnsOf = (name: string) => this.exec.rows(`SELECT name, type FROM system.columns WHERE database = ${quoteString(this.database)} AND table = ${quoteString(name)}`)
    const have = new Set((await columnsOf(stage)).map((r) => String(r[0])))
    let previous: string | null = null
    for (const [name, type] of await columnsOf(table)) {
      if (!have.has(String(name))) {
        const after = previous === null ? '' : ` AFTER ${quoteName(previous)}`
        await this.exec.command(`ALTER TABLE ${quoteName(stage)} ADD COLUMN ${quoteName(String(name))} ${String(type)}${after}`)
      }
      previous = String(name)
    }
  }

  /** Moves every staged row into place (see the module's comment); the caller holds the database's write lock. */
  async commit(): Promise<void> {
    const staged = [...this.stages]
    const replaced = [...this.replacements]
    const parts = await this.partitions([...staged.map(([, stage]) => stage), ...replaced.map(([, r]) => r.stage)])
    const filled = staged.filter(([, stage]) => parts.get(stage)!.length > 0)
    for (const [table, stage] of [...filled, ...replaced.map(([table, r]): [string, string] => [table, r.stage])]) await this.alignColumns(table, stage)
    const pairs = filled.flatMap(([table, stage]) => parts.get(stage)!.map((id) => ({ table, stage, id })))
    if (pairs.length === 1 && replaced.length === 0) {
      const { table, stage, id } = pairs[0]
      await this.exec.command(`ALTER TABLE ${quoteName(table)} ATTACH PARTITION ID ${quoteString(id)} FROM ${quoteName(stage)}`)
    } else if (pairs.length > 0 || replaced.length > 0) {
      await this.swap(filled, parts)
    }
    await this.discard(false)
  }

  private async swap(filled: [string, string][], staged: Map<string, string[]>): Promise<void> {
    const tables = [...new Set([...filled.map(([table]) => table), ...this.replacements.keys()])]
    const live = await this.partitions(tables)
    const copies: { table: string; copy: string; old: string }[] = []
    try {
      for (const table of tables) {
        const copy = fresh('next', this.folder, table)
        copies.push({ table, copy, old: fresh('old', this.folder, table) })
        await this.exec.command(`CREATE TABLE ${quoteName(copy)} AS ${quoteName(table)}`)
        const replacing = this.replacements.get(table)
        for (const id of live.get(table)!) if (!replacing?.ids.has(id)) await this.exec.command(`ALTER TABLE ${quoteName(copy)} REPLACE PARTITION ID ${quoteString(id)} FROM ${quoteName(table)}`)
        // a replaced partition takes the replacement's rows (none: it is left out)
        for (const id of replacing ? staged.get(replacing.stage)! : []) if (replacing!.ids.has(id)) await this.exec.command(`ALTER TABLE ${quoteName(copy)} REPLACE PARTITION ID ${quoteString(id)} FROM ${quoteName(replacing!.stage)}`)
        const stage = filled.find(([t]) => t === table)?.[1]
        for (const id of stage ? staged.get(stage)! : []) await this.exec.command(`ALTER TABLE ${quoteName(copy)} ATTACH PARTITION ID ${quoteString(id)} FROM ${quoteName(stage!)}`)
      }
      await this.exec.command(`RENAME TABLE ${copies.map((c) => `${quoteName(c.table)} TO ${quoteName(c.old)}, ${quoteName(c.copy)} TO ${quoteName(c.table)}`).join(', ')}`)
    } catch (e) {
      await this.restore(copies)
      throw e
    }
    // a query still reading an old table holds it: dropped without waiting
    for (const c of copies) void this.exec.command(`DROP TABLE IF EXISTS ${quoteName(c.old)}`).catch(() => undefined)
  }

  /**
   * After a failed swap, each table gets its own rows back: a pair whose rename did not happen
   * keeps its table (the copy is dropped); a half-done or done pair is renamed back.
   */
  private async restore(copies: { table: string; copy: string; old: string }[]): Promise<void> {
    const names = copies.flatMap((c) => [c.table, c.old])
    const rows = await this.exec.rows(`SELECT name FROM system.tables WHERE database = ${quoteString(this.database)} AND name IN (${names.map(quoteString).join(', ')})`).catch(() => null)
    if (!rows) return
    const present = new Set(rows.map((r) => String(r[0])))
    for (const c of copies) {
      if (present.has(c.old) && present.has(c.table)) await this.exec.command(`RENAME TABLE ${quoteName(c.table)} TO ${quoteName(c.copy)}, ${quoteName(c.old)} TO ${quoteName(c.table)}`).catch(() => undefined)
      else if (present.has(c.old)) await this.exec.command(`RENAME TABLE ${quoteName(c.old)} TO ${quoteName(c.table)}`).catch(() => undefined)
      await this.exec.command(`DROP TABLE IF EXISTS ${quoteName(c.copy)}`).catch(() => undefined)
    }
  }
}

/**
 * Drops the staging, copy and old tables a crash of this data folder left in the database, and
 * its own stale commit lock (./commitLock). Other apps' tables (another folder id) are left alone:
 * they may be loading now. Names from before folder ids (`_uba_<kind>_<12 hex>_…`, no id) were
 * made by an earlier version, whose own start-up drops every `_uba_` table: every UBA Desk on a
 * shared database must be this version or later, so such a name is a crash leftover and goes too.
 */
export async function dropLeftovers(exec: Exec, database: string, folder: string): Promise<number> {
  await dropOwnStaleLock(exec, database, folder)
  const kinds = KINDS.join('|')
  const mine = `^${LEFTOVER_PREFIX}(${kinds})_${folder}_[0-9a-f]{12}_`
  const legacy = `^${LEFTOVER_PREFIX}(${kinds})_[0-9a-f]{12}_`
  const rows = await exec.rows(`SELECT name FROM system.tables WHERE database = ${quoteString(database)} AND (match(name, ${quoteString(mine)}) OR match(name, ${quoteString(legacy)}))`)
  for (const [name] of rows) await exec.command(`DROP TABLE IF EXISTS ${quoteName(String(name))}`)
  return rows.length
}
