import { serveJobs } from '../../threads/jobThread'
import { FunnelPaths, type FunnelPathsOptions, type FunnelTallyParts, type FunnelTallyRow } from './funnelPaths'
import type { FunnelPart } from './funnelPart'

/**
 * A path-following thread of the funnels (funnelThreads.ts). A funnel run sends its parts of the
 * users to the threads; each thread follows the paths of the parts it gets into a tally of its
 * own. At the end one thread adds the others' tallies to its own and answers the rows, so that
 * the medians (a selection over every user's times) are found off the server's thread too.
 */

/** The users of one cell (analysis/cells/funnel.ts): a row and column, and who reached step k (converted) or stopped there (dropped). */
export interface CellListener {
  column: number
  label: string | null
  step: number
  outcome: 'converted' | 'dropped'
}

/** What a thread needs to follow a funnel's paths: the follower's options, and the cell to list the users of. */
export type FunnelThreadOptions = Omit<FunnelPathsOptions, 'onCount'> & { cell?: CellListener }

export type FunnelJob =
  | { kind: 'part'; run: number; options: FunnelThreadOptions; part: FunnelPart }
  /** Answers the thread's tally and cell users as plain data, and forgets the run. */
  | { kind: 'parts'; run: number }
  /** Adds the others' tallies to its own (it may have none: then `options` makes one) and answers the rows; forgets the run. */
  | { kind: 'finish'; run: number; options: FunnelThreadOptions; others: ThreadTally[] }
  | { kind: 'drop'; run: number }

export interface ThreadTally {
  tally: FunnelTallyParts
  users: number[]
}

export interface FollowedPaths {
  rows: FunnelTallyRow[]
  /** The time-to-convert histogram: users by bucket (empty without the option). */
  timeToConvert: number[]
  /** The cell's users, in distinct_id order (empty without a cell). */
  users: number[]
}

export type FunnelReply = { done: true } | ThreadTally | FollowedPaths

interface Run {
  paths: FunnelPaths
  users: Set<number>
}

const runs = new Map<number, Run>()

function runOf(id: number, options: FunnelThreadOptions): Run {
  let run = runs.get(id)
  if (run) return run
  const users = new Set<number>()
  const cell = options.cell
  const onCount: FunnelPathsOptions['onCount'] = cell
    ? (user, label, column, depth) => {
        if (column !== cell.column || label !== cell.label || depth <= cell.step) return
        if (cell.outcome === 'converted' || depth === cell.step + 1) users.add(user)
      }
    : undefined
  run = { paths: new FunnelPaths({ ...options, onCount }), users }
  runs.set(id, run)
  return run
}

serveJobs<FunnelJob, FunnelReply>((job): { reply: FunnelReply; transfer?: ArrayBuffer[] } => {
  if (job.kind === 'part') {
    runOf(job.run, job.options).paths.addPart(job.part)
    return { reply: { done: true } }
  }
  const run = runs.get(job.run)
  runs.delete(job.run)
  if (job.kind === 'drop') return { reply: { done: true } }
  if (job.kind === 'parts') {
    if (!run) return { reply: { tally: { groups: [], histogram: [] }, users: [] } }
    const { parts, buffers } = run.paths.tallyParts()
    return { reply: { tally: parts, users: [...run.users] }, transfer: buffers }
  }
  // a thread that got no part of the users adds up the others' on a tally of its own
  const own = run ?? runOf(job.run, job.options)
  runs.delete(job.run)
  const users = own.users
  for (const other of job.others) {
    own.paths.absorb(other.tally)
    for (const user of other.users) users.add(user)
  }
  return { reply: { rows: own.paths.rows(), timeToConvert: own.paths.timeToConvert(), users: [...users].sort((a, b) => a - b) } }
})
