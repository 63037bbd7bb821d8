/** Response schema of event analysis (spec 4.10), and the fields every analysis adds. */

const explained = {
  type: 'array',
  description: 'With explain=true: the SQL that ran, with its bound values.',
  items: { type: 'object', properties: { sql: { type: 'string' }, params: { type: 'array' } } },
} as const

export const common = {
  reportUpdateTime: { type: 'string', description: 'When the result was computed, yyyy-MM-dd HH:mm:ss in the project time zone.' },
  samplingFactor: { type: 'number' },
  sql: explained,
} as const

export const numbers = { type: 'array', items: { type: ['number', 'null'] } } as const

export const eventsResponse = {
    type: 'object',
    properties: {
      measures: { type: 'array', items: { type: 'string' } },
      byFields: { type: 'array', items: { type: 'string' } },
      series: { type: 'array', items: { type: 'string' }, description: 'Period starts, yyyy-MM-dd.' },
      rows: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            sum: numbers,
            values: { type: 'array', items: numbers, description: 'values[measure][series].' },
            byValue: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      numRows: { type: 'integer' },
      ...common,
    },
  } as const
