import { MAX_BATCH } from '../../domain/cohorts/users'
import { MAX_FILE_BYTES } from '../../domain/userSets/sheet'
import { DEFAULT_QUOTA, QUOTA_KEY } from '../../domain/cohorts/store'
import { NAME_MAX } from '../../domain/userSets/records'
import { COUNT_OPERATORS, RULE_LIMITS } from '../../domain/userSets/rules'
import { RECOMPUTE_HOUR } from '../../domain/cohorts/scheduler'
import { FILTER_FUNCTIONS, filterRequest } from './analysis/requests'
import { exact } from './common'
import { exportFormatField } from './sql'

/** JSON schemas of cohorts (spec 2.6, 3.3, 4.5, 8). The rule content is checked by the domain, which names exact paths. */

export const CONTENT_RULES = `Rule content (spec 2.6): \`{ruleGroup: [{relation, rules}], relations}\`.
- \`ruleGroup\`: 1-${RULE_LIMITS.groups} groups, each with 1-${RULE_LIMITS.rulesPerGroup} \`rules\` combined by \`relation\` AND (default) or OR.
- \`relations\` (AND or AND_NOT) combine the groups left to right: empty or omitted = AND; one value applies between all groups; otherwise exactly groups - 1 values, the i-th joining the result so far with group i + 1 (A AND_NOT B = in A and not in B). Anything else: 400 naming \`content.relations\`.
- User rule \`{type: "user", expression: "user.<propertyId>", function, params}\`: the operator catalogue of filters per data type (string EQ, NOT_EQ, CONTAIN, NOT_CONTAIN; number EQ, NOT_EQ, GT, GTE, LT, LTE, RANGE; boolean TRUE, FALSE; datetime ABSOLUTE_TIME, RELATIVE_TIME_OF_CUURENT, RELATIVE_TIME_RANGE_CUURENT; array<string> EQ, CONTAIN, NOT_CONTAIN; all types NULL, NOT_NULL). Values are read from the user's profile now; a user without the value does not match (except NULL). An operator that does not fit the type: 400 naming \`...function\`.
- Event rule \`{type: "event", expression, aggregator, function, params, eventAbsoluteTimeParams | eventRelativeTimeParam, filter?}\`: \`expression\` event.<eventId> (a tracked or virtual event, or event.$Anything) with aggregator TOTAL_COUNT (the user's events), or event.<eventId>.<propertyId> with REMOVE_DUMPLICATE (distinct values of the property on those events). \`function\` a numeric operator (EQ, NOT_EQ, GT, GTE, LT, LTE, RANGE; NULL and NOT_NULL do not apply) compared with the count, which is 0 for a user without such events (so "TOTAL_COUNT EQ 0" selects users who did not do it). Days: \`eventAbsoluteTimeParams\` ["yyyy-MM-dd", "yyyy-MM-dd"] (inclusive), or \`eventRelativeTimeParam\` "<n>,<m>,day" (from n days ago to m days ago, n >= m; "6,0,day" = the last 7 days including today) or "<n> day" (= "<n>,0,day"; "0 day" = today); the absolute one wins when both are sent. Days are calendar days of the project's time zone; "today" is the day of the computation. \`filter\`: conditions on the event's properties (or user properties).
- Users: everyone the project has seen (with an event or a profile). Every malformed rule is a 400 naming its path, e.g. \`content.ruleGroup[1].rules[0].function\`; an unknown event or property: 400 naming \`...expression\`.`

/** A rule on a profile property now; its operators are the filters' (RELATIVE_TIME_OF_EVENT needs an event). */
const userRule = {
  type: 'object',
  required: ['type', 'expression', 'function'],
  properties: {
    type: { type: 'string', enum: ['user'], description: 'A user property, read from the profile now.' },
    expression: { type: 'string', description: 'user.<propertyId>.' },
    function: { type: 'string', enum: FILTER_FUNCTIONS.filter((f) => f !== 'RELATIVE_TIME_OF_EVENT'), description: "An operator that fits the property's data type, in any letter case." },
    params: { type: 'array', items: { type: ['string', 'number'] }, description: "The operator's values, as in filters (RANGE: two; NULL and NOT_NULL: none)." },
    // a user rule has no aggregator: typed clients get `never` (the server ignores one sent anyway)
    aggregator: false,
  },
  examples: [{ type: 'user', expression: 'user.gender', function: 'EQ', params: ['female'] }],
} as const

/** A rule on what the user did: events (or distinct values of one of their properties) counted over days. */
const eventRule = {
  type: 'object',
  required: ['type', 'expression', 'aggregator', 'function', 'params'],
  properties: {
    type: { type: 'string', enum: ['event'], description: 'What the user did in a window of days.' },
    expression: { type: 'string', description: 'event.<eventId> (TOTAL_COUNT) or event.<eventId>.<propertyId> (REMOVE_DUMPLICATE); a tracked or virtual event, or $Anything.' },
    aggregator: { type: 'string', enum: ['TOTAL_COUNT', 'REMOVE_DUMPLICATE'], description: 'TOTAL_COUNT: the events; REMOVE_DUMPLICATE: distinct values of the property on them (any letter case).' },
    function: { type: 'string', enum: [...COUNT_OPERATORS], description: 'A numeric operator compared with the count, in any letter case.' },
    params: { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 2, description: 'The count to compare with (RANGE: low and high).' },
    eventAbsoluteTimeParams: { type: 'array', items: { type: 'string', format: 'date' }, minItems: 2, maxItems: 2, description: '[first day, last day], inclusive; wins over eventRelativeTimeParam.' },
    eventRelativeTimeParam: { type: 'string', description: '"<n>,<m>,day" or "<n> day"; one of the two windows is required.' },
    filter: filterRequest,
  },
  examples: [{ type: 'event', expression: 'event.buy', aggregator: 'TOTAL_COUNT', function: 'GTE', params: [2], eventRelativeTimeParam: '29,0,day' }],
} as const

/** One rule of a group: a user property rule or an event rule, told apart by `type`. */
const cohortRule = { oneOf: [userRule, eventRule] } as const

const ruleGroup = (required: readonly string[]) =>
  ({
    type: 'object',
    required: [...required],
    properties: {
      relation: { type: 'string', enum: ['AND', 'OR'], description: 'Between the rules of the group (default AND).' },
      rules: { type: 'array', minItems: 1, maxItems: RULE_LIMITS.rulesPerGroup, items: cohortRule },
    },
  }) as const

const relations = { type: 'array', items: { type: 'string', enum: ['AND', 'AND_NOT'] }, description: 'Between the groups, left to right.' } as const

/** The rule content as /openapi.json shows it, for generated clients; the domain checks it (naming exact paths). */
export const cohortContentSchema = {
  type: 'object',
  required: ['ruleGroup'],
  description: CONTENT_RULES,
  properties: {
    ruleGroup: { type: 'array', minItems: 1, maxItems: RULE_LIMITS.groups, items: ruleGroup(['rules']) },
    relations,
  },
} as const

/** The content as stored and answered: every group's relation, and groups - 1 relations, always written out. */
export const storedContentSchema = {
  type: 'object',
  required: ['ruleGroup', 'relations'],
  properties: {
    ruleGroup: { type: 'array', minItems: 1, items: ruleGroup(['relation', 'rules']) },
    relations,
  },
} as const

export const cohortIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, description: 'Cohort id.' } },
} as const

export const nameRule = { type: 'string', minLength: 1, maxLength: NAME_MAX, 'x-rule': `1-${NAME_MAX} characters`, description: 'Unique name in the project.' } as const

/** The fields every cohort and tag answer starts with. */
export const identityFields = { id: { type: 'integer' }, code: { type: 'string' }, name: { type: 'string' } } as const

export const statusRule = { type: 'string', enum: ['calculating', 'success', 'failed'] } as const

/**
 * The multipart body of a byfile route: a name and a file of `columns`, plus `extra` parts.
 * Documentation only: the multipart reader does not fill the body, the route checks the parts.
 */
export function fileUploadBody<Extra extends object>(columns: string, extra: Extra) {
  return {
    content: {
      'multipart/form-data': {
        schema: {
          description: 'name and file are required.',
          properties: {
            name: { type: 'string', description: 'Unique name.' },
            file: { type: 'string', format: 'binary', description: `Excel workbook (first sheet) or CSV file with ${columns}, at most ${MAX_FILE_BYTES / 1024 / 1024} MB.` },
            ...extra,
          },
        },
      },
    },
  } as const
}

export const newCohortBody = {
  type: 'object',
  required: ['name', 'dynamic', 'content'],
  additionalProperties: false,
  properties: {
    name: nameRule,
    dynamic: { type: 'integer', enum: [0, 1], description: `1 dynamic (recomputed every day at ${RECOMPUTE_HOUR}:00 project time), 0 static (computed at creation and on recalculate).` },
    content: { type: 'object', description: CONTENT_RULES },
  },
} as const

export const createdCohort = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    code: { type: 'string', description: 'c + id, e.g. c12: the code used in crowds and cohort/users.' },
    name: { type: 'string' },
    dynamic: { type: 'integer', enum: [0, 1] },
    createTime: { type: 'string', description: 'yyyy-MM-dd HH:mm:ss, project time zone.' },
    content: { ...storedContentSchema, description: 'The content as stored: relations upper case and expanded to groups - 1 values, property ids in lower case.' },
  },
} as const

export const cohortRecord = {
  type: 'object',
  properties: {
    ...identityFields,
    dynamic: { type: 'integer', enum: [0, 1], description: '1 dynamic, 0 static.' },
    userNumber: { type: ['integer', 'null'], description: 'Members at the last successful computation; null before the first.' },
    status: statusRule,
    calculatedTime: { type: ['string', 'null'], description: 'The moment the last successful computation was made as of (yyyy-MM-dd HH:mm:ss, project time zone); null before the first.' },
    source: { type: 'string', enum: ['rule', 'file'], description: 'needMore only: rule (built from rules) or file (byfile).' },
    createdTime: { type: 'string', description: 'needMore only.' },
    createdUser: { type: 'string', description: 'needMore only: display name of the loginUser account (name, else user name, else e-mail), or "API" when created without loginUser.' },
    updatedTime: { type: 'string', description: 'needMore only: the creation or the last successful computation.' },
    content: { anyOf: [storedContentSchema, { type: 'string', enum: [''] }], description: 'needMore only: the rule content as stored, or "" for a file cohort.' },
    failReason: { type: ['string', 'null'], description: 'needMore only: why the last computation failed (status failed), else null.' },
  },
} as const

export const needMoreQuery = { needMore: { type: 'boolean', default: false, description: 'Add source, createdTime, createdUser, updatedTime, content and failReason.' } } as const

export const QUOTA_NOTE = `A project holds at most ${DEFAULT_QUOTA} cohorts (the settings key \`${QUOTA_KEY}\` of the metadata database changes it); past that: 501/501. A name in use: 501/50101.`

export const fileCohortBody = fileUploadBody('one column of values', {
  property: { type: 'string', description: 'A string user property whose values the file lists; default xwho.' },
} as const)

export const fileCohort = exact({
  type: 'object',
  properties: {
    ...identityFields,
    dynamic: { type: 'integer', enum: [0] },
    userNumber: { type: 'integer', description: 'Members: users whose property equals one of the values.' },
    matched: { type: 'integer', description: 'Distinct values of the file that matched at least one user.' },
    unmatched: { type: 'integer', description: 'Distinct values that matched no user.' },
  },
} as const)

const tagsRule = {
  type: 'array',
  description: 'Tags to add as `tag.<code>`: [{code, version?}], the latest version by default. Unknown code: 400 naming tags[i].code; unknown version: tags[i].version.',
  items: {
    type: 'object',
    required: ['code'],
    additionalProperties: false,
    properties: { code: { type: 'string' }, version: { type: 'integer', minimum: 1 } },
  },
} as const

const propertiesRule = {
  type: 'array',
  items: { type: 'string' },
  description: 'User property ids to return; default: the visible properties of the plan. Unknown: 400 naming properties[i].',
} as const

export const usersBody = {
  type: 'object',
  required: ['cohortCode'],
  additionalProperties: false,
  properties: {
    cohortCode: { type: 'string', description: 'The cohort code (not computed yet or unknown: 400 naming cohortCode).' },
    limit: { type: 'integer', minimum: 1, description: `Without page: the first limit users (default 1000, at most ${MAX_BATCH}). With page: pages cover the first limit users (default: all).` },
    page: { type: 'integer', minimum: 1, description: 'Page number from 1; omitted: no paging.' },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_BATCH, description: 'Required with page; at most limit when limit is sent.' },
    properties: propertiesRule,
    tags: tagsRule,
  },
} as const

/**
 * A user of a member or cell listing as the serializer writes it: open, so its keys go out in the
 * order the domain built them (USER_OBJECT). fast-json-stringify writes listed properties first,
 * which would move distinct_id and xwho ahead of the requested properties.
 */
export const listedUser = { type: 'object', additionalProperties: true } as const

/** The same user as /openapi.json (and so the API contract) describes it: its two fixed keys listed. */
const documentedListedUser = {
  ...listedUser,
  required: ['distinct_id', 'xwho'],
  properties: {
    distinct_id: { type: 'integer', description: 'The numeric platform user id.' },
    xwho: { type: 'string', description: 'The user id.' },
  },
} as const

/** A page of listed users as /openapi.json publishes it (the route's `documentedAnswer`). */
export function documentedUsers<P extends { properties: object }>(page: P): P {
  return { ...page, properties: { ...page.properties, users: { type: 'array', items: documentedListedUser } } }
}

export const usersPage = exact({
  type: 'object',
  properties: {
    count: { type: 'integer', description: 'Users in the cohort.' },
    page: { type: 'integer', description: 'The page returned (1 without paging).' },
    size: { type: 'integer', description: 'Users returned.' },
    users: { type: 'array', items: listedUser },
  },
} as const)

export const exportBody = {
  type: 'object',
  required: ['cohortCode'],
  additionalProperties: false,
  properties: {
    cohortCode: usersBody.properties.cohortCode,
    limit: { type: 'integer', minimum: 1, description: 'The first limit users; omitted: all.' },
    properties: propertiesRule,
    tags: tagsRule,
    format: exportFormatField,
  },
} as const

export const USER_OBJECT = `Each user is a flat object: the requested user properties (null when empty), then distinct_id and xwho, then \`tag.<code>\` for each requested tag (null where the user has no value at that version). Datetimes read yyyy-MM-dd HH:mm:ss; a masked property (plan masking 1) reads "******" where it has a value. Users come in distinct_id order.`

/** POST /uba/api/cohort as published: the content with its real schema (validation stays with the domain). */
export const documentedCohortBody = { ...newCohortBody, properties: { ...newCohortBody.properties, content: cohortContentSchema } } as const
