import { OPERATORS } from '../../../domain/expr/filters'
import { EVENT_AGGREGATORS, PROPERTY_AGGREGATORS } from '../../../domain/analysis/measures'

/**
 * Request schemas of the five analyses (spec 4.10, 2.7), for /openapi.json and generated clients.
 * The domain checks these requests itself (analysis/*: it names the exact parameter, reads the
 * platform's leniencies and knows the plan), so the routes publish these schemas and validate
 * no more than a JSON object: a schema here never refuses what the domain would read.
 */

const text = (description: string) => ({ type: 'string', description }) as const
const day = (description: string) => ({ type: 'string', format: 'date', description: `${description} yyyy-MM-dd, in the project time zone.` }) as const
const words = (values: readonly string[], description: string) => ({ type: 'string', enum: [...values], description: `${description} (any letter case).` }) as const

/** Every operator word of filters and user rules (which fit a property's type is the domain's check). */
export const FILTER_FUNCTIONS = [...new Set(Object.values(OPERATORS).flatMap((ops) => ops.map((o) => o.function)))]

export const filterRequest = {
  type: 'object',
  description: 'Conditions on properties; {} (or no conditions) is no filter.',
  properties: {
    conditions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['expression', 'function'],
        properties: {
          expression: text('event.<eventId>.<propertyId> or user.<propertyId>.'),
          function: words(FILTER_FUNCTIONS, "An operator that fits the property's data type"),
          params: {
            type: 'array',
            items: { type: ['string', 'number'] },
            description: "The operator's values: numbers for a number property (decimal strings are read as numbers), strings otherwise; times as \"yyyy/MM/dd HH:mm\"; relative times as [n, unit, \"within\" | \"before\"] or [from, to, unit].",
          },
        },
      },
    },
    relation: words(['AND', 'OR'], 'Between the conditions; default AND'),
  },
} as const

const breakdown = {
  type: 'object',
  required: ['expression'],
  properties: {
    expression: text('The property: event.<eventId>.<propertyId> or user.<propertyId>.'),
    buckets: { type: 'array', items: { type: 'number' }, description: 'Increasing numbers cutting a number property into intervals ("-∞~a", "a~b", "b~+∞").' },
  },
} as const

const eventStep = {
  type: 'object',
  required: ['expression'],
  properties: { expression: text('event.<eventId>, a virtual event or event.$Anything.'), filter: filterRequest },
} as const

const common = {
  crowds: { type: 'array', items: { type: 'string' }, description: '["$ALL"] or cohort codes.' },
  samplingFactor: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'Share of users sampled by a stable hash of their id; 1 (default) = all.' },
  useCache: { type: 'boolean', description: 'Serve a result computed at the current data version.' },
  limit: { type: 'integer', minimum: 1, maximum: 10000, description: 'At most this many breakdown rows (default 1000).' },
} as const

const dated = {
  fromDate: day('First day,'),
  toDate: day('Last day (inclusive),'),
} as const

const unit = words(['DAY', 'WEEK', 'MONTH'], 'Period')

const compare = (periods: string) =>
  ({
    type: 'string',
    enum: ['previous', 'week', 'year'],
    description: `Optional: the same analysis over an earlier range, answered in \`compare\` and each row's \`previous\` (any letter case). "previous": just before, as long (${periods}); "week": 7 days earlier (with unit MONTH a 400 naming compare); "year": the same calendar days a year earlier (29 February has none: its compared values are null). Period k is compared with the counterpart of its start; a breakdown row is compared with the same value's row (0 users or empty values where the value did not occur), values only in the earlier range are not listed.`,
  }) as const

const measure = (aggregators: readonly string[]) =>
  ({
    type: 'object',
    required: ['expression', 'aggregator'],
    properties: {
      expression: text('event.<eventId> (an event aggregator) or event.<eventId>.<propertyId> (a property aggregator).'),
      aggregator: words(aggregators, 'The aggregator'),
      filter: filterRequest,
    },
  }) as const

export const eventsRequest = {
  type: 'object',
  required: ['measures', 'crowds', 'fromDate', 'toDate'],
  properties: {
    measures: { type: 'array', minItems: 1, items: measure([...EVENT_AGGREGATORS, ...PROPERTY_AGGREGATORS]) },
    filter: filterRequest,
    ...dated,
    unit,
    byFields: { type: 'array', items: breakdown },
    formula: {
      type: 'string',
      maxLength: 200,
      description: 'Optional: a formula between the measures, lettered in request order (A the first): numbers, + - * /, unary minus and parentheses, e.g. "A/B", "(A-B)*100". Answered in each row\'s `formula` (per period and over the whole range), in addition to the measures\' series. A period where a measure has no value or a divisor is 0 gives null. A formula that does not parse, or names a letter past the last measure, is a 400 naming formula.',
    },
    compare: compare('unit DAY: as many days; WEEK or MONTH: as many weeks or months as the range has periods'),
    ...common,
  },
} as const

export const funnelsRequest = {
  type: 'object',
  required: ['steps', 'crowds', 'fromDate', 'toDate'],
  properties: {
    steps: { type: 'array', minItems: 2, maxItems: 20, items: eventStep },
    filter: filterRequest,
    ...dated,
    byField: breakdown,
    byStepIndex: { type: 'integer', minimum: -1, description: 'The step (0-based) whose event gives the breakdown value; -1 holds it constant over every step; omitted: the first.' },
    convertTime: { type: 'integer', minimum: 1, description: 'The conversion window, with convertTimeUnit (default 7 DAY).' },
    convertTimeUnit: words(['DAY', 'HOUR', 'MINUTE'], 'The unit of convertTime'),
    compare: compare('as many days'),
    order: words(
      ['ORDERED', 'STRICT', 'ANY'],
      'ORDERED (default): each step at or after the previous one, other events may come between. STRICT: also no other event of the user (any event the filter keeps) strictly between two consecutive steps; an event at the same millisecond as a step does not interrupt. ANY: the steps in any order within the window, from a path\'s first step event (its day is the entry day); one event may count for several steps, and a step\'s time is when it and every earlier step were all done',
    ),
    exclusions: {
      type: 'array',
      maxItems: 10,
      description: 'A user\'s path stops at step k when an exclusion event (with its filter) lies strictly between the times of steps k and k+1, for fromStep <= k < toStep; an exclusion event at the same millisecond as either step does not stop it. Another entry\'s path may still go further. Not with order ANY.',
      items: {
        ...eventStep,
        properties: {
          ...eventStep.properties,
          fromStep: { type: 'integer', minimum: 0, description: 'The step (0-based) after which it applies; default 0.' },
          toStep: { type: 'integer', minimum: 1, description: 'The step (0-based, later than fromStep) up to which it applies; default the last.' },
        },
      },
    },
    timeToConvert: {
      oneOf: [
        { type: 'boolean', description: 'true: the histogram of seconds from the first to the last step.' },
        {
          type: 'object',
          properties: {
            fromStep: { type: 'integer', minimum: 0, description: 'Default 0.' },
            toStep: { type: 'integer', minimum: 1, description: 'Default the last step.' },
          },
        },
      ],
      description: 'Adds timeToConvert to the answer: converted users by time between two steps, in buckets.',
    },
    ...common,
  },
} as const

export const retentionRequest = {
  type: 'object',
  required: ['firstEvent', 'secondEvent', 'crowds', 'fromDate', 'toDate', 'duration', 'unit'],
  properties: {
    firstEvent: eventStep,
    secondEvent: eventStep,
    filter: filterRequest,
    ...dated,
    duration: { type: 'integer', minimum: 1, maximum: 365, description: 'Periods followed after the initial one.' },
    unit,
    byField: breakdown,
    byFieldIndex: { type: 'integer', enum: [-1, 1, 2], description: '1 initial event property, 2 return event property, -1 user property (or no breakdown).' },
    measures: { type: 'array', maxItems: 1, items: { ...measure(PROPERTY_AGGREGATORS), properties: { expression: text('event.<return event id>.<propertyId>.'), aggregator: words(PROPERTY_AGGREGATORS, 'The aggregator') } } },
    retentionMode: {
      type: 'string',
      enum: ['on', 'onOrAfter'],
      description:
        'on (default): a user counts at +k who did the return event in period +k exactly. onOrAfter: in period +k or any later period the row follows (up to +duration; returns after that are not read), so the counts never grow with k and +duration equals on. Not with measures (any letter case).',
    },
    firstTime: {
      type: 'boolean',
      description:
        "true: the initial event counts only at each user's first-ever occurrence of it (its filter applied), looked for in all the data up to toDate, not just the range: a user who first did it before fromDate is in no cohort. Events at the same millisecond as the first all count. Default false: every occurrence in the range.",
    },
    ...common,
  },
} as const

export const distributionRequest = {
  type: 'object',
  required: ['measure', 'crowds', 'fromDate', 'toDate'],
  properties: {
    measure: measure(['TOTAL_COUNT', 'DISTRIBUTION_TIME', ...PROPERTY_AGGREGATORS]),
    filter: filterRequest,
    ...dated,
    unit: { type: 'string', enum: ['', 'DAY', 'WEEK', 'MONTH'], description: '"" (default) the whole range, else one row per period (any letter case).' },
    byField: breakdown,
    ...common,
  },
} as const

export const userAttributesRequest = {
  type: 'object',
  required: ['measure', 'crowds'],
  properties: {
    measure: {
      type: 'object',
      required: ['aggregator'],
      properties: {
        aggregator: words(['USER_COUNT', ...PROPERTY_AGGREGATORS], 'The aggregator'),
        expression: text('user.<propertyId>; none for USER_COUNT.'),
      },
    },
    filter: filterRequest,
    byFields: { type: 'array', items: breakdown },
    crowds: common.crowds,
    useCache: common.useCache,
    limit: common.limit,
  },
} as const

/** By analysis module kind. */
export const analysisRequests: Record<string, object> = {
  events: eventsRequest,
  funnels: funnelsRequest,
  retention: retentionRequest,
  distribution: distributionRequest,
  userAttributes: userAttributesRequest,
}
