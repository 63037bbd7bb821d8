import { GRID_COLUMNS, MAX_TILES } from '../../domain/reports/dashboards'
import { REPORT_NAME_MAX } from '../../domain/reports/reports'
import { exact } from './common'
import { reportRecord } from './reports'

/** Dashboards (UBA Desk addition): request, answer and path schemas. */

export const DASHBOARDS_ABOUT = `A dashboard is a named grid of saved reports: tiles {reportId, x, y, w, h} on a grid ${GRID_COLUMNS} columns wide (x from 0, x + w at most ${GRID_COLUMNS}; h in rows of 84 px), at most ${MAX_TILES}. The tiles are the dashboard's layout: the app shows them where they say, in reading order (by y, then x); moving, resizing or removing a tile in the app writes every tile again, flowed left to right in that order, half (w 6) or full (w ${GRID_COLUMNS}) width and small (h 5) or large (h 8). Other sizes written here are kept as they are. fromDate and toDate (both yyyy-MM-dd, or both null) replace every report's own range when the dashboard runs (user attributes have none); crowd ($ALL or a cohort code; null: each report its own) replaces the reports' crowds. GET /uba/api/dashboards/{id} gives each tile its report with the request to run (the overrides applied), or report null when that report was deleted. Names are unique in the project (501/50101); only the creator changes or deletes a dashboard (400 naming loginUser).`

export const dashboardIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, description: 'Dashboard id.' } },
} as const

const tile = {
  type: 'object',
  required: ['reportId', 'x', 'y', 'w', 'h'],
  description: 'One tile of the layout: where a report sits on the grid and how big it is.',
  properties: {
    reportId: { type: 'integer', description: 'A saved report of the project.' },
    x: { type: 'integer', description: `Column, from 0.` },
    y: { type: 'integer', description: 'Row, from 0.' },
    w: { type: 'integer', description: `Width in columns, 1-${GRID_COLUMNS}.` },
    h: { type: 'integer', description: 'Height in rows, 1-12.' },
  },
} as const

const day = { type: ['string', 'null'], description: 'yyyy-MM-dd, or null for each report its own range.' } as const

const fields = {
  name: { type: 'string', minLength: 1, maxLength: REPORT_NAME_MAX, 'x-rule': `1-${REPORT_NAME_MAX} characters`, description: 'Unique name in the project.' },
  tiles: { type: 'array', items: tile, description: 'The layout: every tile with its place and size (sent whole; [] when not sent at creation).' },
  fromDate: day,
  toDate: day,
  crowd: { type: ['string', 'null'], description: '$ALL or a cohort code for every tile; null: each report its own.' },
} as const

export const newDashboardBody = { type: 'object', required: ['name'], additionalProperties: false, properties: fields } as const
export const dashboardChangesBody = { type: 'object', additionalProperties: false, properties: fields } as const

const tileView = exact({
  ...tile,
  properties: {
    ...tile.properties,
    report: exact({
      type: ['object', 'null'],
      description: 'The report, with request: what this tile runs (the overrides applied); null when the report was deleted.',
      properties: { name: { type: 'string' }, kind: reportRecord.properties.kind, request: { type: 'object', additionalProperties: true }, options: { type: 'object', additionalProperties: true } },
    } as const),
  },
} as const)

function record(tiles: object) {
  return exact({
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      fromDate: { type: ['string', 'null'] },
      toDate: { type: ['string', 'null'] },
      crowd: { type: ['string', 'null'] },
      tiles: { type: 'array', items: tiles },
      createdUser: { type: 'string' },
      createdTime: { type: 'string' },
      updatedUser: { type: 'string' },
      updatedTime: { type: 'string' },
    },
  } as const)
}

export const dashboardListItem = record(exact(tile))
export const dashboardRecord = record(tileView)
