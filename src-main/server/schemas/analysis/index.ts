import { distributionResponse } from './distribution'
import { eventsResponse } from './events'
import { funnelsResponse } from './funnels'
import { retentionResponse } from './retention'
import { userAttributesResponse } from './userAttributes'

/** Response schemas of the analyses (spec 4.10), by module kind. */
export const analysisResponses: Record<string, object> = {
  events: eventsResponse,
  funnels: funnelsResponse,
  retention: retentionResponse,
  distribution: distributionResponse,
  userAttributes: userAttributesResponse,
}
