import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { credentialsOf, openContext, startApp, type RunningApp } from './app'
import { importCommand } from './cliImport'
import { sampleCommand } from './cliSample'
import { defaultDataDir } from './paths'
import { parseCollectorListen } from './server/collectorAddress'
import { claimDataDir, DEFAULT_PORT, removeServerFile, writeServerFile } from './serverFile'
import { openServerLog } from './serverLog'
import { privateDir } from './store/private'

export { DEFAULT_PORT }

const USAGE = `usage: uba-desk <command> [options]

commands:
  serve        --data-dir DIR [--port N] [--host 127.0.0.1] [--allow-origin URL] [--import-root DIR]
               [--collector-listen HOST:PORT]
               the headless server: API, /docs and the web UI on loopback
               (--port 0 picks a free port; default 5177; --import-root, repeatable, adds a
               folder that imports by path may read besides the Settings' ones);
               --collector-listen adds a listener serving the SDK collector (/up) alone,
               e.g. 0.0.0.0:8106 for phones
  credentials  --data-dir DIR
               prints {"xtoken", "projects": [{"appKey", "token", "name"}]} as JSON
  import       --project KEY [--data-dir DIR] [--format F] [--kind events|profiles]
               [--mapping JSON] [--sheet NAME] [--delimiter ,|;|tab|pipe] [--decimal .|,]
               [--on-error abort|skip] [--dedupe] FILE...
               imports files with a progress bar, through the running server if one is up
  sample       --project KEY [--data-dir DIR] [--users N] [--days N] [--seed S] [--end-date yyyy-MM-dd]
               loads the sample e-commerce data (default 20000 users over the 90 days up to
               yesterday) into a project that has no data yet, with a progress bar

--data-dir defaults to ${defaultDataDir()}`

/** The built web UI, next to the sources (repo checkout) or the bundle (built app). */
export function defaultUiDir(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  return resolve(here, '..', 'out', 'renderer')
}

export interface ServeOptions {
  dataDir: string
  port: number
  host: string
  allowOrigins: string[]
  uiDir?: string
  /** A second listener for the collector (/up) alone. */
  collectorListen?: { host: string; port: number }
  /** Folders imports by path may read, besides the setting import.roots. */
  importRoots?: string[]
}

/** Starts the headless server, announces it, and shuts down cleanly on SIGINT/SIGTERM. */
export async function serve(options: ServeOptions): Promise<RunningApp> {
  privateDir(options.dataDir)
  await claimDataDir(options.dataDir)
  const { logger, file: logFile } = openServerLog(options.dataDir)
  // handlers first: a signal that arrives while starting or right after the announcement must
  // still shut down cleanly (without a listener, Node dies on the spot)
  let starting: Promise<RunningApp> | undefined
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: shutting down`)
    try {
      const app = await starting?.catch(() => undefined)
      await app?.close()
    } finally {
      removeServerFile(options.dataDir)
      logger.flush()
      process.exit(0)
    }
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))

  starting = startApp({
    dataDir: options.dataDir,
    host: options.host,
    port: options.port,
    uiDir: options.uiDir ?? defaultUiDir(),
    extraOrigins: options.allowOrigins,
    importRoots: options.importRoots,
    logger,
    collectorListen: options.collectorListen,
  })
  const app = await starting
  // a signal during start-up closes the app as soon as it is up; nothing to announce then
  if (stopping) return app
  writeServerFile(options.dataDir, { url: app.url, pid: process.pid, collectorUrl: app.collectorUrl })
  console.log(`listening on ${app.url}`)
  const collector = app.collectorListener.state()
  if (collector.listening) {
    console.log(`collector (/up only) listening on ${app.collectorUrl}`)
    for (const url of collector.urls) console.log(`  SDK upload address: ${url}`)
  }
  console.log(`data folder: ${options.dataDir}`)
  console.log(`log: ${logFile}`)
  return app
}

async function credentials(dataDir: string): Promise<void> {
  const ctx = openContext({ dataDir }, (err) => console.error(err))
  try {
    console.log(JSON.stringify(credentialsOf(ctx), null, 2))
  } finally {
    await ctx.background.idle()
    await ctx.warehouse.close()
    ctx.meta.close()
  }
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, not ${text}`)
  return port
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'allow-origin': { type: 'string', multiple: true, default: [] },
      'collector-listen': { type: 'string' },
      'import-root': { type: 'string', multiple: true, default: [] },
      project: { type: 'string' },
      format: { type: 'string' },
      kind: { type: 'string' },
      mapping: { type: 'string' },
      sheet: { type: 'string' },
      delimiter: { type: 'string' },
      decimal: { type: 'string' },
      'on-error': { type: 'string' },
      dedupe: { type: 'boolean' },
      users: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      'end-date': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: command === 'import',
    strict: true,
  })
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir())
  switch (command) {
    case 'serve':
      await serve({
        dataDir,
        port: parsePort(values.port),
        host: values.host!,
        allowOrigins: values['allow-origin']!,
        importRoots: values['import-root']!.map((d) => resolve(d)),
        collectorListen: values['collector-listen'] === undefined ? undefined : parseCollectorListen(values['collector-listen']),
      })
      return
    case 'credentials':
      await credentials(dataDir)
      return
    case 'import':
      if (!values.project) throw new Error('--project KEY is required (see uba-desk credentials for the keys)')
      process.exitCode = await importCommand({
        dataDir,
        appKey: values.project,
        files: positionals,
        fields: { format: values.format, kind: values.kind, mapping: values.mapping, sheet: values.sheet, delimiter: values.delimiter, decimal: values.decimal, onError: values['on-error'], dedupe: values.dedupe },
      })
      return
    case 'sample':
      if (!values.project) throw new Error('--project KEY is required (see uba-desk credentials for the keys)')
      process.exitCode = await sampleCommand({ dataDir, appKey: values.project, users: values.users, days: values.days, seed: values.seed, endDate: values['end-date'] })
      return
    default:
      console.log(USAGE)
      if (command !== undefined && command !== 'help' && !values.help) process.exitCode = 2
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: Error) => {
    console.error(`uba-desk: ${err.message}`)
    process.exit(1)
  })
}
