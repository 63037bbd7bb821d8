/**
 * What the project-auth hook hands to project-level routes. It sits below platform and schema
 * (with the operation log and the data version) because every part of the domain takes it.
 */
export interface ProjectScope {
  appKey: string
  timeZone: string
}
