import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A real ClickHouse server for tests (and the bench: bench/clickhouse.ts): Debian's `clickhouse-server`
 * (18.16 here and in CI), started on free loopback ports over a temporary folder with a generated
 * config, stopped and removed afterwards (a folder given by the caller is kept).
 * Start-up on this 2-core machine: about 1 s (measured: `startupMs`).
 */
export const CLICKHOUSE_SERVER = process.env.UBA_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server'

/** The user custom SQL will run as: profile readonly=1 (no writes, no settings, no table functions). */
export const READER = { user: 'reader', password: 'reader-pass' }
/** readonly=2: reads, and settings may be changed per query; table functions (file, url, remote) are NOT forbidden. */
export const SETTINGS_READER = { user: 'settings_reader', password: 'settings-pass' }

export interface TestClickHouse {
  /** http://127.0.0.1:PORT */
  url: string
  ports: { http: number; tcp: number; interserver: number }
  dir: string
  pid: number
  /** Milliseconds from spawn to the first `Ok.` from /ping. */
  startupMs: number
  stop(): Promise<void>
}

let warned = false

/**
 * True when the server binary exists; otherwise says so once, loudly. CI (.ci/run sets
 * UBA_REQUIRE_CLICKHOUSE=1) installs it, so there a missing binary fails instead of skipping.
 */
export function clickhouseAvailable(): boolean {
  if (existsSync(CLICKHOUSE_SERVER)) return true
  if (process.env.UBA_REQUIRE_CLICKHOUSE === '1') throw new Error(`${CLICKHOUSE_SERVER} is absent but UBA_REQUIRE_CLICKHOUSE=1: the ClickHouse tests must run here`)
  if (!warned) {
    warned = true
    console.warn(`\n*** ClickHouse tests SKIPPED: ${CLICKHOUSE_SERVER} is absent (apt-get install clickhouse-server, or set UBA_CLICKHOUSE_SERVER) ***\n`)
  }
  return false
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      const port = typeof address === 'object' && address ? address.port : 0
      srv.close(() => resolve(port))
    })
  })
}

function configXml(dir: string, ports: TestClickHouse['ports']): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/server.err.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${ports.http}</http_port>
  <tcp_port>${ports.tcp}</tcp_port>
  <interserver_http_port>${ports.interserver}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>32</max_concurrent_queries>
  <!-- the server waits for idle keep-alive connections when it stops: short, so a stop takes ~1-2 s, not ~8 s -->
  <keep_alive_timeout>2</keep_alive_timeout>
</yandex>
`
}

function user(name: string, password: string, profile: string): string {
  return `<${name}><password>${password}</password><networks><ip>127.0.0.1</ip></networks><profile>${profile}</profile><quota>default</quota></${name}>`
}

function usersXml(memoryBytes: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>${memoryBytes}</max_memory_usage><max_threads>2</max_threads></default>
    <readonly><readonly>1</readonly><max_threads>2</max_threads><max_execution_time>30</max_execution_time><max_result_rows>100000</max_result_rows><result_overflow_mode>throw</result_overflow_mode></readonly>
    <readonly_settings><readonly>2</readonly><max_threads>2</max_threads></readonly_settings>
  </profiles>
  <users>
    ${user('default', '', 'default')}
    ${user(READER.user, READER.password, 'readonly')}
    ${user(SETTINGS_READER.user, SETTINGS_READER.password, 'readonly_settings')}
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited(child)
  clearTimeout(killer)
}

function logTail(dir: string, output: string): string {
  const err = join(dir, 'server.err.log')
  const log = existsSync(err) ? readFileSync(err, 'utf8') : ''
  return `${output}\n${log}`.trim().split('\n').slice(-15).join('\n')
}

/** Polls /ping until it answers `Ok.`; fails at once if the process ends, or after `timeoutMs`. */
async function waitForPing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`clickhouse-server exited (${child.exitCode ?? child.signalCode}) before answering /ping`)
    try {
      const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1_000) })
      if (res.ok && (await res.text()).startsWith('Ok')) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`clickhouse-server did not answer /ping within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** `dir`: a folder whose data outlives the server (the bench's cache); a temporary one by default. */
export interface StartOptions {
  dir?: string
  /** max_memory_usage of the default profile, per query: 2 GB by default. */
  memoryBytes?: number
  /** The HTTP port (a kept project's address stays the same); a free one by default. */
  httpPort?: number
}

async function startOnce(timeoutMs: number, options: StartOptions): Promise<TestClickHouse> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'uba-desk-clickhouse-'))
  for (const sub of ['data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub), { recursive: true })
  const ports = { http: options.httpPort ?? (await freePort()), tcp: await freePort(), interserver: await freePort() }
  writeFileSync(join(dir, 'config.xml'), configXml(dir, ports))
  writeFileSync(join(dir, 'users.xml'), usersXml(options.memoryBytes ?? 2_000_000_000))
  const url = `http://127.0.0.1:${ports.http}`
  const started = Date.now()
  const child = spawn(CLICKHOUSE_SERVER, [`--config-file=${join(dir, 'config.xml')}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()))
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()))
  child.once('error', (e) => (output += String(e)))
  const stop = async () => {
    await stopChild(child)
    if (!options.dir) rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitForPing(url, child, timeoutMs)
  } catch (e) {
    const detail = logTail(dir, output)
    await stop()
    throw new Error(`${(e as Error).message}\n${detail}`)
  }
  return { url, ports, dir, pid: child.pid!, startupMs: Date.now() - started, stop }
}

/**
 * Starts a server; a port taken between choosing and binding (another test file) ends the process,
 * so a failed start is tried again on new ports, up to three times.
 */
export async function startClickHouse(timeoutMs = 30_000, options: StartOptions = {}): Promise<TestClickHouse> {
  let last: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(timeoutMs, options)
    } catch (e) {
      last = e
      if (!/exited/.test((e as Error).message)) break
    }
  }
  throw last
}
