import { TAG_LIMITS } from '../../domain/tags/tags'
import { cohortContentSchema, fileUploadBody, identityFields, nameRule, statusRule, storedContentSchema } from './cohorts'

/** JSON schemas of tags (a UBA Desk definition; spec 2.9 only shows `tag.<code>` in user details). */

export const TAGS_ABOUT = `A tag is a named value per user. It is computed from rules (an ordered list of {value, content}, content being cohort rule content; a user gets the value of the first rule they match, users matching none have no value) or imported from a file (two columns: xwho, value). Each computation (creation, recalculate) adds a version numbered 1, 2, ...: a snapshot kept in the warehouse table tag_<code> (version INTEGER, distinct_id BIGINT, value VARCHAR), earlier versions kept. Values are text. User details (cohort/users, cohort/users/export, users/personal, cohort/users/{xwho}) take tags: [{code, version?}] and return tag.<code>: the value at that version (default the latest), or null. Codes are t + id (e.g. t3).`

export const tagCodeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', description: 'Tag code, e.g. t3.' } },
} as const

/** One rule of a tag: the value its users get, and cohort rule content (as sent, or as stored). */
const tagRule = <C extends object>(content: C) =>
  ({
    type: 'object',
    required: ['value', 'content'],
    properties: {
      value: { type: 'string', minLength: 1, maxLength: TAG_LIMITS.value, description: 'The value users matching this rule get (unless an earlier rule matched them).' },
      content: { ...content, description: 'Cohort rule content, see POST /uba/api/cohort.' },
    },
  }) as const

export const newTagBody = {
  type: 'object',
  required: ['name', 'rules'],
  additionalProperties: false,
  properties: {
    name: { ...nameRule, description: 'Unique name in the project (in use: 501/50101).' },
    rules: {
      type: 'array',
      minItems: 1,
      maxItems: TAG_LIMITS.rules,
      description: `1-${TAG_LIMITS.rules} rules in priority order, each {value (1-${TAG_LIMITS.value} characters), content (cohort rule content, see POST /uba/api/cohort)}. A malformed rule is a 400 naming its path, e.g. rules[1].content.ruleGroup[0].rules[0].function.`,
      items: { type: 'object' },
    },
  },
} as const

const version = {
  type: 'object',
  properties: {
    version: { type: 'integer' },
    userNumber: { type: 'integer', description: 'Users with a value in this version.' },
    calculatedTime: { type: 'string', description: 'The moment the version was computed as of, yyyy-MM-dd HH:mm:ss (project time zone).' },
  },
} as const

export const tagRecord = {
  type: 'object',
  properties: {
    ...identityFields,
    source: { type: 'string', enum: ['rule', 'file'] },
    status: { ...statusRule, description: 'Of the latest computation.' },
    failReason: { type: ['string', 'null'] },
    createdUser: { type: 'string', description: 'Display name of the loginUser account, or "API".' },
    createdTime: { type: 'string' },
    updatedTime: { type: 'string', description: 'The creation or the latest version.' },
    rules: { anyOf: [{ type: 'array', items: tagRule(storedContentSchema) }, { type: 'null' }], description: 'The rules as stored ({value, content}), or null for a file tag.' },
    versions: { type: 'array', items: version },
  },
} as const

export const createdTag = {
  type: 'object',
  properties: {
    ...identityFields,
    status: { type: 'string', enum: ['calculating'] },
    createTime: { type: 'string' },
  },
} as const

/** POST /uba/api/tags as published: each rule with its real schema (validation stays with the domain, naming exact paths). */
export const documentedTagBody = {
  ...newTagBody,
  properties: { ...newTagBody.properties, rules: { ...newTagBody.properties.rules, items: tagRule(cohortContentSchema) } },
} as const

export const fileTagBody = fileUploadBody('two columns, xwho and value', {})

export const fileTag = {
  type: 'object',
  properties: {
    ...identityFields,
    version: { type: 'integer', enum: [1] },
    userNumber: { type: 'integer' },
    matched: { type: 'integer', description: 'Rows (distinct xwho) whose xwho is a user of the project.' },
    unmatched: { type: 'integer', description: 'Rows whose xwho is no user.' },
  },
} as const
