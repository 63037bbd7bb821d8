import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/analysis/cells/users'
import { analysisRequests } from './analysis/requests'
import { listedUser } from './cohorts'
import { exportFormatField } from './sql'

/** Schemas of the users behind a cell (POST /uba/api/{analysis}/users...). */

const label = { type: ['string', 'number'] } as const
const labels = { type: 'array', items: label, description: "The row's byValue as the answer gives it: one label per breakdown (absent or [] without one)." } as const

/** The coordinates of one cell, per analysis (the module kind of analysisRequests). */
export const CELLS: Record<string, { kind: string; cell: object }> = {
  events: {
    kind: 'events',
    cell: {
      type: 'object',
      description: 'measure i (0-based, default 0), the row byValue, period (a start of series, yyyy-MM-dd; absent: the whole range, sum). The users who did the measure\'s event there (TRIGGER_USER_COUNT counts exactly them); for a property measure, those whose matching events carry a value of it.',
      properties: { measure: { type: 'integer', minimum: 0 }, byValue: labels, period: { type: 'string', format: 'date' } },
    },
  },
  funnels: {
    kind: 'funnels',
    cell: {
      type: 'object',
      required: ['step'],
      description: 'step k (0-based), outcome converted (default: the users of convertedUser[k], whose counted path reached step k) or dropped (reached step k, not k + 1: convertedUser[k] - convertedUser[k + 1]; not on the last step), byValue (a breakdown value of byValues; -1 or absent: the total row), day (an entry day yyyy-MM-dd of the range; absent: the $ALL column). Found by the same path following as the counts, so every funnel rule and option applies.',
      properties: { step: { type: 'integer', minimum: 0 }, outcome: { type: 'string', enum: ['converted', 'dropped'] }, byValue: label, day: { type: 'string', format: 'date' } },
    },
  },
  retentions: {
    kind: 'retention',
    cell: {
      type: 'object',
      description: 'The row: day (the first day of an initial period, as the period rows name it) or byValue (a breakdown value) or neither ($ALL); offset k (0..duration; absent: the row\'s totalPeople); outcome returned (default: the users of retentionPeoples[k]) or notReturned (the row\'s starters who did not return at +k; needs offset). A cell not observed yet (null in the answer) is a 400 naming cell.offset. Found from the retention\'s own scan and user-period pairs.',
      properties: { day: { type: 'string', format: 'date' }, byValue: label, offset: { type: 'integer', minimum: 0 }, outcome: { type: 'string', enum: ['returned', 'notReturned'] } },
    },
  },
  distributions: {
    kind: 'distribution',
    cell: {
      type: 'object',
      required: ['bucket'],
      description: 'byValue: the row as the answer writes it ("all", a period\'s first day, or a breakdown value; default "all" when that is the only row); bucket: an interval label of series ("[2,3)"). The users whose measure in that row falls in the interval.',
      properties: { byValue: label, bucket: { type: 'string' } },
    },
  },
  userAttributes: {
    kind: 'userAttributes',
    cell: {
      type: 'object',
      description: 'byValue: the row (one label per byFields entry; absent or [] without byFields). The users of that row; for a property measure, those with a value of it.',
      properties: { byValue: labels },
    },
  },
}

const own = {
  page: { type: 'integer', minimum: 1, description: 'Page number from 1 (pageNum is read the same); default 1.' },
  pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: `Users per page; default ${DEFAULT_PAGE_SIZE}.` },
  properties: { type: 'array', items: { type: 'string' }, description: 'User property ids to return with each user; default: the visible properties of the plan. Unknown: 400 naming properties[i].' },
}

/** The analysis request with `cell` and the fields of `extra`. */
export function cellBody(analysis: string, extra: Record<string, object>, required: string[] = []): object {
  const request = analysisRequests[CELLS[analysis].kind] as { properties: Record<string, object>; required?: string[] }
  return {
    type: 'object',
    required: [...(request.required ?? []), 'cell', ...required],
    properties: { ...request.properties, cell: CELLS[analysis].cell, ...extra },
  }
}

export const pageFields = own
export const exportFields = { properties: own.properties, format: exportFormatField }
export const cohortFields = { name: { type: 'string', description: 'The cohort name (unique in the project, at most 100 characters).' } }

export const cellUsersPage = {
  type: 'object',
  properties: {
    count: { type: 'integer', description: 'Users in the cell (equal to the figure the analysis shows there for counts of users).' },
    page: { type: 'integer' },
    pageSize: { type: 'integer' },
    size: { type: 'integer', description: 'Users returned.' },
    users: { type: 'array', items: listedUser },
  },
} as const

export const savedCohort = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    code: { type: 'string' },
    name: { type: 'string' },
    dynamic: { type: 'integer', enum: [0] },
    userNumber: { type: 'integer', description: 'Members: the users of the cell.' },
    matched: { type: 'integer' },
    unmatched: { type: 'integer' },
  },
} as const
