import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { clickhouseAvailable, startClickHouse } from '../helpers/clickhouse'

/** True when a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.skipIf(!clickhouseAvailable())('the test ClickHouse server', () => {
  it('listens on loopback only, on three free ports, and leaves nothing behind when stopped', async () => {
    const ch = await startClickHouse()
    const { http, tcp, interserver } = ch.ports
    expect(new Set([http, tcp, interserver]).size).toBe(3)
    for (const port of [http, tcp, interserver]) expect(await accepts('127.0.0.1', port)).toBe(true)
    const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)
    if (outside) for (const port of [http, tcp]) expect(await accepts(outside.address, port)).toBe(false)
    expect(existsSync(`${ch.dir}/users.xml`)).toBe(true)
    await ch.stop()
    expect(alive(ch.pid)).toBe(false)
    expect(existsSync(ch.dir)).toBe(false)
    expect(await accepts('127.0.0.1', http)).toBe(false)
  })

  it('two servers run side by side (test files run two at a time)', async () => {
    const [a, b] = await Promise.all([startClickHouse(), startClickHouse()])
    try {
      expect(a.url).not.toBe(b.url)
      for (const s of [a, b]) expect(await (await fetch(`${s.url}/ping`)).text()).toBe('Ok.\n')
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
