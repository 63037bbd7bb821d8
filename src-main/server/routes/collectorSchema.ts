import type { FastifySchema } from 'fastify'

/** What /up answers and how each SDK's transport reaches it (the /docs of the collector). */

const rejection = { type: 'object', properties: { row: { type: 'integer', description: "The record's position in the upload, from 1." }, property: { type: 'string' }, value: { type: ['string', 'null'] }, reason: { type: 'string' } } } as const

const result = {
  type: 'object',
  properties: {
    code: { type: 'integer', enum: [200] },
    received: { type: 'integer' },
    stored: { type: 'integer', description: 'Events written plus profile rows changed.' },
    rejected: { type: 'integer' },
    debug: { type: 'integer', description: '$debug 1 records: checked, not stored.' },
    aliasesMerged: { type: 'integer', description: 'Present when the upload held $alias records: those that merged an anonymous id into a login id.' },
    aliasesIgnored: { type: 'integer', description: 'Present when the upload held $alias records: those stored but ignored by the merge rules (reasons in problems).' },
    problems: { type: 'array', description: 'The first 20 records refused, with reasons, and notes on records stored anyway (an appid differing from the address\'s), by position in the upload.', items: rejection },
    valuesDropped: { type: 'integer', description: 'Values left out of stored records because they do not fit their property.' },
    dropped: { type: 'array', description: 'The first 20 values left out, with reasons.', items: rejection },
  },
} as const

const COMMON = `Records are JSON objects ({appid, xwho, xwhat, xwhen, xcontext}). Each goes to the project its \`appid\` names; a record without one takes the \`appid\` of the address; when the two differ, the record's own is followed and \`problems\` says so. Records are stored only while that project's data stream is started (stream 2); only a record without a usable \`appid\`, \`xwho\`, \`xwhat\` or \`xwhen\` is refused (counted in \`rejected\`, with reasons in \`problems\`); a value that does not fit its property's type is left out of its record, which is stored (counted in \`valuesDropped\`, with reasons in \`dropped\`); an xcontext that is not an object, or a key that cannot be a property id, is left out the same way, and a record with more than 300 properties is stored whole (the SDKs keep that limit). Preset \`$\` properties (\`$lib\`, \`$is_login\`...) in \`$profile_increment\` and \`$profile_append\` records are not applied where the operation cannot apply (increment: numbers, append: arrays), and are no problem. Everything refused or left out, and every upload refused while the stream is stopped, is kept in the project's data quality log (GET /uba/api/ingest/problems). \`$debug\` 1 records are checked and not stored.

Identities: \`$alias\` (xwho = the login id, \`$original_id\` = the anonymous id) makes both ids one user, one distinct_id, for their events before and after it, in every analysis, cohort and people view; xwho stays as sent. An anonymous id merges into one login id (a later alias of it to another user is ignored: the first wins); a login id that anonymous ids were merged into is never merged as an anonymous id; an \`$original_id\` equal to xwho, or ids already of one user, change nothing. An ignored alias is stored as an event and listed in \`problems\` (property \`$original_id\`), counted in \`aliasesIgnored\`.

Any web origin may upload (the collector only writes); a project can narrow that to a list (POST /uba/manage/enterprise/projects/{appKey}/collector), checked against the browser's Origin (or, for an image request, its Referer). Answers carry CORS and \`Cross-Origin-Resource-Policy: cross-origin\`.

Limits, each a {code, msg, data} answer naming \`body\`: at most 64 MB once unzipped (413), 10,000 records (413), 1 MB per record (413); a record that is not an object, JSON that does not parse, or a value that is neither JSON nor base64 is a 400, as is malformed percent-encoding (naming the field). While 2 uploads are being decoded and the uploads waiting hold 64 MB (each counted as at least 16 KB), another is refused with 503 (send again), as is an upload that waited 5 s for a project busy writing (an import) or found 64 MB of records already waiting for the project's writer (uploads that arrive while it writes are written together, each answered once stored); both are counted in the project's data quality log (\`busyRefusals\` of GET /uba/api/ingest/problems; server-wide when the upload's first kilobytes name no project). A project whose warehouse memory is too small for an upload answers 413.

While the data stream of a target project is not started, the whole upload is refused with 503 and nothing is stored. What the SDKs do with that 503: the browser SDK in its default image mode and with \`sendType: 'send'\` (beacon) counts any answer as sent and drops the batch; with \`sendType: 'post'\` it keeps the records in local storage and sends them again with the next upload. The Node SDK drops the batch. The Python SDK raises an error: its batch collector keeps the batch and retries it at the next flush, its default collector leaves the record to the caller. The Java SDK logs the failure and drops the batch (both collectors).`

const POST_DESCRIPTION = `What the SDKs POST. The body is a JSON array of records (or one record), or that JSON gzipped and base64-encoded (standard or URL-safe base64, possibly percent-encoded), sent as application/json, text/plain or application/x-www-form-urlencoded, either as the whole body or as a form field \`data\` (with an optional \`appid\` field). A \`Content-Encoding\` of gzip, deflate or br is unzipped first; any other value (the Java SDK sends UTF-8) names a charset and is ignored. Wire formats: browser SDK \`sendType: 'post'\` (form-urlencoded, raw JSON, \`?appid=\`) and \`'send'\` (sendBeacon, text/plain, raw JSON); Node (application/json, \`?appid=\`); Python (base64 of gzip as form-urlencoded, no field name); Java (base64 of gzip as text/plain; charset=ISO-8859-1, Content-Encoding: UTF-8). Answers {"code": 200, ...}.

${COMMON}`

const GET_DESCRIPTION = `The browser SDK's default transport (an image request, one per record): \`data\` is base64 of the JSON array (or gzip-then-base64), percent-encoded; \`appid\` names the project; \`send_type\` is a checksum and is ignored. Answers a 1x1 GIF (200) so that the image loads, or, when the request's Accept names application/json, the same JSON as a POST. Errors are {code, msg, data} as for a POST (the SDK cannot see them: an image that fails to load counts as sent).

${COMMON}`

const querystring = {
  type: 'object',
  properties: {
    appid: { type: 'string', description: 'The project of records that name none.' },
    data: { type: 'string', description: 'GET only: base64 of the records\' JSON (or of its gzip).' },
    send_type: { type: 'string', description: 'The browser SDK\'s checksum; ignored.' },
  },
} as const

const errors = { 400: { $ref: 'Error#' }, 413: { $ref: 'Error#' }, 415: { $ref: 'Error#' }, 503: { $ref: 'Error#' } }

export function collectorSchema(method: 'GET' | 'POST'): FastifySchema {
  if (method === 'GET') {
    return {
      tags: ['collector'],
      summary: 'Receive SDK uploads as an image request (local collector)',
      description: GET_DESCRIPTION,
      querystring,
      response: {
        200: { description: 'A 1x1 GIF (image/gif), or the upload\'s result as JSON when Accept asks for it.', ...result },
        ...errors,
      },
    }
  }
  return {
    tags: ['collector'],
    summary: 'Receive SDK uploads (local collector)',
    description: POST_DESCRIPTION,
    querystring,
    body: {
      content: {
        'application/json': { schema: { description: 'JSON array of records.' } },
        'text/plain': { schema: { description: 'JSON, or base64 of its gzip.' } },
        'application/x-www-form-urlencoded': { schema: { description: 'JSON or base64 of its gzip, whole or as the field data.' } },
      },
    },
    response: { 200: result, ...errors },
  }
}
