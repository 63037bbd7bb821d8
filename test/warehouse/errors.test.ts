import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBWarehouses } from '../../src-main/warehouse/duckdb'
import { engineFailure, failureText, unreadableInput } from '../../src-main/warehouse/errors'

// The one place that reads engine failures, on failures DuckDB really raises.

let dir: string
let wh: DuckDBWarehouses
let small: DuckDBWarehouses
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'uba-failures-'))
  wh = new DuckDBWarehouses({ dir: join(dir, 'normal'), threads: 1, memoryLimit: '256MB' })
  small = new DuckDBWarehouses({ dir: join(dir, 'small'), threads: 1, memoryLimit: '8MB' })
  await wh.createProject('e', 'UTC')
  await small.createProject('e', 'UTC')
})
afterAll(async () => {
  await wh.close()
  await small.close()
  rmSync(dir, { recursive: true, force: true })
})

async function failureOf(warehouses: DuckDBWarehouses, sql: string): Promise<unknown> {
  try {
    await warehouses.withConnection('e', 'UTC', (c) => c.run(sql))
  } catch (err) {
    return err
  }
  throw new Error(`no failure: ${sql}`)
}

describe('engine failures', () => {
  it('knows an interrupted query', async () => {
    let settled = false
    const running = wh.withConnection('e', 'UTC', (c) => c.run('SELECT count(*) FROM range(100000000000) a')).then(
      () => null,
      (e: unknown) => e,
    )
    void running.finally(() => (settled = true))
    // an interrupt that lands before the query starts is lost: repeated until the query ends
    await expect.poll(() => (wh.interrupt('e'), settled), { timeout: 20_000 }).toBe(true)
    const err = await running
    expect(engineFailure(err)).toBe('interrupted')
  })

  it('knows a query past the memory limit', async () => {
    const err = await failureOf(small, 'SELECT list(i) FROM range(20000000) t(i)')
    expect(engineFailure(err)).toBe('out-of-memory')
    expect(failureText(err)).toMatch(/^failed to allocate/)
  })

  it('knows a value it could not convert, a refused CSV file, and anything else', async () => {
    const conversion = await failureOf(wh, "SELECT 'abc'::INTEGER")
    expect(engineFailure(conversion)).toBe('unreadable-input')
    expect(unreadableInput(conversion)).toBe(true)
    expect(failureText(conversion)).toBe("Could not convert string 'abc' to INT32")

    const file = join(wh.stagingDirOf('e'), 'bad.csv')
    writeFileSync(file, 'user,event,time\nr1,ragged,2024-04-04\nr2,ragged\nr3,ragged,2024-04-04\n')
    const csv = await failureOf(wh, `CREATE TEMP TABLE staged AS SELECT * FROM read_csv('${file}', header = true, all_varchar = true, delim = ',')`)
    expect(engineFailure(csv)).toBe('unreadable-csv')
    expect(unreadableInput(csv)).toBe(true)
    expect(failureText(csv)).toMatch(/^(CSV Error|Error when sniffing)/)

    const binder = await failureOf(wh, 'SELECT nope FROM range(1)')
    expect(engineFailure(binder)).toBe('other')
    expect(unreadableInput(binder)).toBe(false)
    expect(engineFailure('not an error')).toBeNull()
  })
})
