import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'

/**
 * The headless server as a real child process (`uba-desk serve`), for what only a separate
 * process can show: a crash (SIGKILL) at a chosen instant and what the next start makes of it.
 */

export const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'uba-desk.mjs')

export interface ServerProcess {
  child: ChildProcess
  url: string
  /** Resolves with the first match of `pattern` in what the process printed (now or later). */
  printed(pattern: RegExp): Promise<RegExpMatchArray>
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>
  output(): string
}

const running = new Set<ChildProcess>()

/** Kills every server process still running (call in afterEach). */
export function killAll(): void {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  running.clear()
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())))
}

/** Starts `uba-desk serve` on a free port; resolves once it says it is listening. */
export function serveProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  running.add(child)
  let out = ''
  const waiting: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = []
  const check = () => {
    for (const w of [...waiting]) {
      const m = out.match(w.pattern)
      if (m) {
        waiting.splice(waiting.indexOf(w), 1)
        w.resolve(m)
      }
    }
  }
  child.stdout!.on('data', (d: Buffer) => ((out += d.toString()), check()))
  child.stderr!.on('data', (d: Buffer) => ((out += d.toString()), check()))
  const printed = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolvePromise, reject) => {
      waiting.push({ pattern, resolve: resolvePromise })
      check()
      child.once('exit', (code, signal) => reject(new Error(`serve exited (${code ?? signal}) before printing ${pattern}: ${out}`)))
    })
  return printed(/listening on (http:\/\/\S+)/).then((m) => ({
    child,
    url: m[1],
    printed,
    output: () => out,
    kill: async () => {
      child.kill('SIGKILL')
      await exited(child)
      running.delete(child)
    },
  }))
}

/** The data folder's credentials, from `uba-desk credentials`. */
export function credentialsOf(dataDir: string): { xtoken: string; projects: { appKey: string; token: string }[] } {
  const res = spawnSync(process.execPath, [BIN, 'credentials', '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 })
  if (res.status !== 0) throw new Error(`credentials failed: ${res.stderr}`)
  return JSON.parse(res.stdout)
}

/** JSON over HTTP: status and parsed body. */
export async function callJson(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text) }
  } catch {
    return { status: res.status, body: text }
  }
}
