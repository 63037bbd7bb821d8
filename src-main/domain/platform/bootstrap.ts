import type { DomainContext } from '../context'
import { createProject } from './projects'
import { platformToken } from './settings'

/** The first start makes the app usable at once: a platform `xtoken` and one project. */
export function ensurePlatform(ctx: DomainContext): void {
  platformToken(ctx.meta)
  const { n } = ctx.meta.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }
  if (n === 0) createProject(ctx, { name: 'Default' }, null)
}
