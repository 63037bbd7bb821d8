/** Schemas of the import API (UBA Desk addition). */

import { DATA_TYPES } from '../../domain/schema/types'
import { exact } from './common'

const mappingSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Tabular files: which columns hold the user, the event and the time.',
  properties: {
    xwho: { type: 'string', minLength: 1, description: 'Column holding the user id.' },
    xwhat: { type: 'string', minLength: 1, description: 'Column holding the event id.' },
    event: { type: 'string', minLength: 1, description: 'One event id for every row (instead of xwhat).' },
    xwhen: { type: 'string', minLength: 1, description: 'Column holding the time.' },
    properties: { type: 'object', additionalProperties: { type: ['string', 'null'] }, description: 'Column -> property id, or null to leave the column out.' },
    types: { type: 'object', additionalProperties: { type: 'string', enum: ['string', 'number', 'boolean', 'datetime', 'array<string>'] }, description: 'Property id -> type for new properties.' },
  },
} as const

export const importFieldsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, description: 'Absolute path of a local file (JSON body only), under the folders imports may read (GET /uba/manage/enterprise/settings/importRoots; default the home and temp folders), or a file the user chose in the desktop app’s open dialog during this run; links are resolved first. Another path is a 400 naming path.' },
    format: { type: 'string', enum: ['json', 'csv', 'tsv', 'parquet', 'excel'] },
    kind: { type: 'string', enum: ['events', 'profiles'], default: 'events' },
    mapping: mappingSchema,
    sheet: { type: 'string', description: 'Excel: the sheet to read (default the first).' },
    delimiter: { type: 'string', description: 'CSV and TSV: the cell separator, one of `,` `;` `|` or a tab, also by name: comma, semicolon, pipe, tab (else 400 naming delimiter; also for other formats). Default: for CSV the one its header line shows most often outside quotes (a comma when none), for TSV a tab.' },
    decimal: { type: 'string', enum: ['.', ','], description: 'CSV and TSV: the decimal mark of numbers. With `,` a number reads as 1,5 or 1500 (digits and at most one comma); 1.5 does not fit a number there (1.500 may mean fifteen hundred).' },
    onError: { type: 'string', enum: ['abort', 'skip'], default: 'abort' },
    dedupe: { type: 'boolean', default: false },
  },
} as const

const rejection = exact({
  type: 'object',
  properties: { row: { type: 'integer' }, property: { type: 'string' }, value: { type: ['string', 'null'] }, reason: { type: 'string' } },
} as const)

export const jobSchema = exact({
  type: 'object',
  properties: {
    id: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
    phase: { type: ['string', 'null'], enum: ['reading', 'checking', 'writing', null] },
    kind: { type: 'string' },
    format: { type: 'string' },
    source: { type: 'string', description: 'File name.' },
    rowsRead: { type: 'integer', description: 'Records read from the file: set when the file has been read (phase checking; JSON counts lines until then), final when the job ends. 0 before.' },
    rowsWritten: { type: 'integer', description: 'Events written plus profile rows changed.' },
    rowsRejected: { type: 'integer' },
    percent: { type: 'number' },
    rejected: { type: 'array', items: rejection, description: 'The first 100 rejected records.' },
    error: { type: ['string', 'null'] },
    createTime: { type: 'integer' },
    startTime: { type: ['integer', 'null'] },
    endTime: { type: ['integer', 'null'] },
    result: exact({
      type: ['object', 'null'],
      properties: {
        eventsWritten: { type: 'integer' },
        profilesChanged: { type: 'integer' },
        debugSkipped: { type: 'integer' },
        duplicatesSkipped: { type: 'integer' },
        aliasesMerged: { type: 'integer', description: '$alias records that merged an anonymous id into a login id (README "Identities").' },
        aliasesIgnored: { type: 'integer', description: '$alias records stored as events but ignored by the merge rules.' },
        aliasProblems: {
          type: 'array',
          description: 'The first ignored $alias records: row, `$original_id`, its value, why.',
          items: rejection,
        },
      },
    }, ['aliasesMerged', 'aliasesIgnored', 'aliasProblems']),
  },
} as const)

const FORMATS = ['json', 'csv', 'tsv', 'parquet', 'excel'] as const

export const previewSchema = exact({
  type: 'object',
  properties: {
    format: { type: 'string', enum: FORMATS },
    kind: { type: 'string', enum: ['events', 'profiles', 'records'], description: 'events or profiles for tabular files, records for SDK records (JSON).' },
    sheets: { type: ['array', 'null'], items: { type: 'string' } },
    delimiter: { type: ['string', 'null'], description: 'CSV and TSV: the cell separator the file was read with.' },
    decimal: { type: ['string', 'null'], enum: ['.', ',', null], description: 'CSV and TSV: the decimal mark numbers were read with.' },
    header: { type: ['array', 'null'], items: { type: 'string' } },
    mapping: { ...mappingSchema, type: ['object', 'null'], description: 'Tabular files: the mapping used (the request\'s, completed by guesses from the header); null for other files.' },
    mappingProblem: { type: ['string', 'null'], description: 'What the mapping still lacks (tabular files), else null.' },
    properties: {
      type: 'array',
      items: exact({
        type: 'object',
        properties: {
          property: { type: 'string' },
          type: { type: 'string', enum: [...DATA_TYPES] },
          known: { type: 'boolean', description: 'The plan knows it (its type is fixed).' },
          target: { type: 'string', enum: ['event', 'user'] },
        },
      }),
    },
    rows: {
      type: 'array',
      items: exact({
        type: 'object',
        properties: {
          row: { type: 'integer' },
          xwho: { type: ['string', 'null'] },
          xwhat: { type: ['string', 'null'] },
          xwhen: { type: ['string', 'null'], description: 'yyyy-MM-dd HH:mm:ss.SSS in the project\'s time zone.' },
          ds: { type: ['integer', 'null'] },
          properties: { type: 'object', additionalProperties: true },
          problem: exact({ type: ['object', 'null'], properties: { property: { type: 'string' }, value: { type: ['string', 'null'] }, reason: { type: 'string' } } }),
        },
      }),
    },
    rowsChecked: { type: 'integer' },
    rowsRejected: { type: 'integer' },
    problems: { type: 'array', items: rejection },
  },
} as const)
