import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { distributionAnalysis } from '../../domain/analysis/distribution'
import { eventAnalysis } from '../../domain/analysis/events'
import { funnelAnalysis } from '../../domain/analysis/funnels'
import { retentionAnalysis } from '../../domain/analysis/retention'
import { userAttributeAnalysis } from '../../domain/analysis/userAttributes'
import { runAnalysis, type AnalysisModule } from '../../domain/analysis/runner'
import { RUN_ID_PATTERN } from '../../domain/analysis/runs'
import { projectSecurity, responses } from '../schemas/common'
import { analysisResponses } from '../schemas/analysis/index'
import { analysisRequests } from '../schemas/analysis/requests'

const COMMON = `Common rules: fromDate and toDate (yyyy-MM-dd) are inclusive calendar days in the project's time zone; periods (unit DAY, WEEK starting Monday, MONTH) are named by their first day. crowds is ["$ALL"] or cohort codes. samplingFactor (0, 1] samples users by a stable hash of their id (1 = all data; the response repeats it). useCache true serves a result computed at the project's current data version (reportUpdateTime says when). Query explain=true adds \`sql\`: the statements that ran, with their bound values. Read as the platform's server reads a request: a field an analysis does not take (the common parameters of another analysis among them: unit on a funnel, byField on an event analysis, fromDate or samplingFactor on user attributes) is ignored, in the body and in its objects; numbers may come as decimal strings (convertTime "1", a number property's filter param "100") and strings as numbers; enum words (unit, aggregator, convertTimeUnit, a filter's function and relation) in any letter case; filter {} is no filter. A value of the wrong kind (a date that is not a date, an unknown aggregator, a word where a number belongs) is a 400 naming it.`

interface Route {
  path: string
  module: AnalysisModule<unknown, object>
  summary: string
  description: string
}

/** Analysis endpoints (spec 4.10): one route per analysis module, all run the same way. */
export default async function analysisRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  const routes: Route[] = [
    {
      path: '/uba/api/events/analyze',
      module: eventAnalysis as AnalysisModule<unknown, object>,
      summary: 'Event analysis',
      description: `Measures per period and over the whole range (\`sum\`), optionally broken down by byFields. Event aggregators: TRIGGER_USER_COUNT (distinct users), TOTAL_COUNT (events), AVG_COUNT (events per acting user). Property aggregators: REMOVE_DUMPLICATE (distinct values, any type), SUM, AVG, MAX, MIN, AVG_PER (sum per acting user) on number properties. \`sum\` counts distinct users over the whole range, not a sum of periods. Number breakdowns with buckets [600, 800] give "-∞~600", "600~800", "800~+∞" (lower bound included); a missing value is "unknown"; an array<string> property breaks down by element. limit keeps the rows with the largest first-measure sum; numRows counts all. Measure names are "<event display name> · <aggregator>".`,
    },
    {
      path: '/uba/api/funnels/analyze',
      module: funnelAnalysis,
      summary: 'Funnel analysis',
      description: `Users through ordered steps. steps: 2 to 20 of {expression, filter}: event.<id>, a virtual event or event.$Anything; a step's filter may use user properties and the properties of the step's own event (or of $Anything); filter applies to every step. A user enters at any first-step event inside fromDate..toDate; each later step is a different event at or after the previous step's (an equal time counts: among events at the same moment, the one that can be an earlier step is taken first), and no later than entry + convertTime convertTimeUnit (the last moment included; the window may run past toDate, whose later events count as steps, never as entries). convertTime is a whole number >= 1, convertTimeUnit DAY (24 hours), HOUR or MINUTE, together, at most 365 days; both omitted: 7 DAY. A step before the entry does not count. The same event on two steps needs two events (view -> view: a second view). From each entry the earliest path is followed, which reaches the deepest step. Counted path: per user and entry day, the deepest from any entry that day (the earliest entry among equals); for $ALL, the deepest over the range, so a user counts once. convertedUser[k] by dateList index: users whose counted path reached at least step k. medianConvertedTime (one per pair of consecutive steps, stepsExpress "<a>~<b>"): the median seconds from a to b on the counted paths of the users who reached b (the middle two averaged; null where nobody did). Breakdown (byField {expression, buckets}): by a user property (byStepIndex -1 or omitted), or by an event property read on the counted path's event of step byStepIndex (0-based; omitted = the first step), whose event must carry it (byField event.<that step's event or $Anything>.<property>); a user whose counted path stops before that step is "unknown", as is a missing value; a list property counts the user under each element. byStepIndex -1 (any step) holds the event property constant: the row of value v counts each user's paths over only their events that carry v (events with another value are passed over, so every step a path reaches in that row carries v), by the same rules as above (deepest per entry day, deepest over the range for $ALL), so a user whose value changes between steps may count under several values, at different depths; the total row is the funnel without breakdown. The property must be carried by every step's event (a common property, or one of each step's events; $Anything carries any), else a 400 naming byField.expression; the expression may name any step's event or $Anything. Events without a value form the "unknown" row. Number buckets [20, 30] give "-∞~20", "20~30", "30~+∞". Rows: the total (byValue -1) first, then the breakdown values with the most entered users over the range first (unknown after known among equals, then by label); limit (default 1000) keeps that many breakdown rows. One crowd only: ["$ALL"] or one cohort code (a second crowd is a 400 naming crowds).`,
    },
    {
      path: '/uba/api/retentions/analyze',
      module: retentionAnalysis,
      summary: 'Retention analysis',
      description: `For each period of the range (unit DAY, WEEK or MONTH), the users who did the initial event firstEvent in it (totalPeople), and, at index k of retentionPeoples, those of them who did the return event secondEvent in period +k, for k = 0 (the same period) to duration. Rules: k = 0 counts a return event at any time of the same period, before or after the initial event (so when both events are the same, retentionPeoples[0] = totalPeople). Initial events count only on the days fromDate..toDate; return events count on any day of their period, including days after toDate (events are read up to duration periods after the last period). Without byField the first row is $ALL: users de-duplicated across periods (a user counts once in totalPeople, and at k when they returned at +k from any period where they did the initial event); then one row per period, byValue its first day "yyyy/MM/dd HH:mm:ss". A cell whose period +k starts after the latest day with data in the project is null (not observed yet; a period that has begun counts the data present); the $ALL row is null at k only when no period has reached +k. firstEvent and secondEvent are {expression: event.<id> (tracked, virtual or $Anything), filter?}; a filter's event-property conditions must name that event. filter (optional) holds user-property conditions applied to both events. duration: a whole number from 1 to 365. byField {expression, buckets?} with byFieldIndex: 1 a property of the initial event (a user is in a value's row when they did the initial event with that value; the row is de-duplicated like $ALL), 2 a property of the return event (row v counts users who returned with a return event carrying v; totalPeople is every starter), -1 a user property (or no breakdown; the default). With byField the first row is still $ALL (the same numbers as without byField), then one row per value, largest totalPeople first, then largest retentionPeoples[0], [1], ...; "unknown" after known values; limit (default 1000) keeps that many value rows. measures: at most one {expression: event.<return event id>.<property>, aggregator}, not with byField; aggregators as in event analysis: SUM, AVG, MAX, MIN, AVG_PER (sum per returning user with a value) on number properties, REMOVE_DUMPLICATE (distinct values) on any; measures[k] aggregates the return events of period +k of the users counted at k (for $ALL, each such user-period once); 0 for SUM and REMOVE_DUMPLICATE where nobody returned, else null; without measures, each row's measures is null.`,
    },
    {
      path: '/uba/api/distributions/analyze',
      module: distributionAnalysis,
      summary: 'Distribution analysis',
      description: `How many users did something how much. Per user, the measure over a period: TOTAL_COUNT events; DISTRIBUTION_TIME the number of distinct local days with the event; on a property (event.<id>.<property>) REMOVE_DUMPLICATE (distinct values, any type), SUM, AVG, MAX, MIN, AVG_PER on number properties, aggregated over the user's events (AVG_PER is the sum per acting user, which for one user is the user's sum: it equals SUM). Users with no matching event, or for a property with no value of it, are not counted; \`sum\` is the number of users in the row and \`values\` the users per interval. Intervals (\`series\`, shared by all rows) are labelled "[a,b)" with the lower bound included and chosen from the data: whole values spanning at most 10 numbers get one interval each ("[1,2)", "[2,3)" ...); otherwise the width is the smallest of 1, 2, 5 × 10^n (at least 1 for whole values) giving at most 10 intervals that start at a multiple of the width, ending at the maximum, or, when the tail is long (the maximum lies more than twice as far from the minimum as the 95th percentile does), at the 95th percentile with the rest in an open "[a,+∞)"; a maximum landing exactly on the last edge gets one more closed interval (or the open one when there are already 10). Rows: unit "" (or absent) gives one row "all" for the whole range; unit DAY, WEEK (starting Monday) or MONTH gives one row per period, in order, byValue the period start yyyy-MM-dd, each user's measure computed within that period (a period cut by the range counts only its days in the range), periods without users included with zeros. byField {expression, buckets} gives one row per value over the whole range and needs unit "" (any other unit is a 400 naming unit); a user whose events carry several values of an event property counts under each, with the measure over the events carrying it; a missing value is "unknown"; limit (default 1000) keeps the rows with the most users (ties: known values first, then by label) and applies to breakdown rows only. filter applies to every event; measure.filter to the measure's events.`,
    },
    {
      path: '/uba/api/userAttributes/analyze',
      module: userAttributeAnalysis,
      summary: 'User attribute analysis',
      description: `The users who have a profile (one row of profile_vd per user: users known only from events are not counted), as they are now: there is no date range. measure.aggregator USER_COUNT counts users and takes no expression; REMOVE_DUMPLICATE (distinct values of any type; a list is one value), SUM, AVG, MAX, MIN, AVG_PER (number properties) aggregate measure.expression, which must be user.<propertyId> (an event expression is a 400 naming measure.expression). AVG_PER is the sum per user with a value, as in event analysis; a user has one value here, so it equals AVG. Users without a value of the property are left out of SUM, AVG, MAX, MIN, AVG_PER and REMOVE_DUMPLICATE; a row with no value has 0 for a count or a sum and null for AVG, MAX, MIN, AVG_PER. filter reads user properties only: an event.* condition is a 400 naming filter.conditions[i].expression, and RELATIVE_TIME_OF_EVENT (no event here) a 400 naming filter.conditions[i].function. byFields (may be empty) are user properties {expression, buckets}: buckets cut a number property into "-∞~a", "a~b", "b~+∞" (lower bound included); a missing value is "unknown"; an array<string> property puts a user under each of its elements. Without byFields there is one row with byValue []. Rows are ordered by value, largest first (null last); among equal values rows without "unknown" come first, then by label; limit (default 1000) keeps the first rows. crowds is required; no sampling and no date comparison.`,
    },
  ]
  for (const route of routes) {
    app.post<{ Querystring: { explain?: boolean; runId?: string } }>(route.path, {
      config: { auth: 'project', documentedBody: analysisRequests[route.module.kind] },
      schema: {
        tags: ['analysis'],
        summary: route.summary,
        description: `${route.description}\n\n${COMMON}`,
        security: projectSecurity,
        querystring: {
          type: 'object',
          properties: {
            explain: { type: 'boolean', default: false },
            runId: { type: 'string', pattern: RUN_ID_PATTERN, description: 'A name the caller gives this run (1 to 64 letters, digits, - or _): while it runs, GET /uba/api/analyses/{runId}/progress streams how far it is and DELETE /uba/api/analyses/{runId} cancels it (the analysis then answers 503 "the analysis <runId> was cancelled", data ["runId"]). A runId already running in the project is a 400.' },
          },
        },
        // the domain checks the fields (naming each bad one, with the platform's leniencies); /openapi.json shows analysisRequests
        body: { type: 'object' },
        response: responses(analysisResponses[route.module.kind], [400, 401, 415, 503]),
      },
    }, async (request) => runAnalysis(ctx, request.project, route.module, request.body as Record<string, unknown>, { explain: request.query.explain === true, runId: request.query.runId }))
  }
}
