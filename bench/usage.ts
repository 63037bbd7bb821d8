// What a bench run costs besides its wall time: the CPU of this process (the server, DuckDB and the
// funnel threads all run in it, so every thread counts) and its resident memory sampled while the
// run goes on (issue 23 asks for the server's own RSS, sampled during the runs).
import { loadavg } from 'node:os'

export interface Usage {
  ms: number
  /** CPU milliseconds of the process, every thread. */
  cpu: number
  /** The highest RSS sampled during the run, in MB. */
  rssMb: number
}

/** How often RSS is sampled: the funnel's paths are followed off the main thread, so the samples keep coming. */
const SAMPLE_MS = 20

/** Runs `work`, sampling RSS meanwhile. */
export async function usage(work: () => Promise<void>): Promise<Usage> {
  let rss = process.memoryUsage.rss()
  const sampler = setInterval(() => (rss = Math.max(rss, process.memoryUsage.rss())), SAMPLE_MS)
  const c = process.cpuUsage()
  const t = performance.now()
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  const used = process.cpuUsage(c)
  return { ms: performance.now() - t, cpu: (used.user + used.system) / 1000, rssMb: Math.max(rss, process.memoryUsage.rss()) / 2 ** 20 }
}

/** A warm run, then `runs` measured: the median wall and CPU, the highest RSS, and the wall spread. */
export async function medianUsage(work: () => Promise<void>, runs = 3): Promise<Usage & { spread: string }> {
  await work()
  const all: Usage[] = []
  for (let i = 0; i < runs; i++) all.push(await usage(work))
  const median = (k: 'ms' | 'cpu') => all.map((u) => u[k]).sort((a, b) => a - b)[runs >> 1]
  const walls = all.map((u) => u.ms)
  return { ms: median('ms'), cpu: median('cpu'), rssMb: Math.max(...all.map((u) => u.rssMb)), spread: `${Math.min(...walls).toFixed(0)}-${Math.max(...walls).toFixed(0)}` }
}

/** The machine's load averages (1, 5, 15 minutes): how loaded the shared machine was. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}
