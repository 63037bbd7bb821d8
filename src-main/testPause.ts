/**
 * For crash tests only: with UBA_DESK_TEST_PAUSE set to a point's name (reading, checking,
 * writing, before-commit, after-commit; before-batch-commit: the collector's transaction of several
 * uploads, uploadBatches.ts; shipped: a ClickHouse project's load staged there, not yet moved into place), work that reaches that point announces it on stdout and
 * waits until the process gets SIGUSR2 (never, unless a test sends it), so that a test can kill the
 * process at exactly that instant instead of guessing with timers, or do something else meanwhile
 * and let it go on. Unset (always, outside tests), it costs nothing.
 */
export type PausePoint = 'reading' | 'checking' | 'writing' | 'before-commit' | 'after-commit' | 'before-batch-commit' | 'shipped'

export async function testPause(point: PausePoint, what: string): Promise<void> {
  if (process.env.UBA_DESK_TEST_PAUSE !== point) return
  process.stdout.write(`test pause: ${point} ${what}\n`)
  await new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()))
}
