import { defineStore } from 'pinia'
import { getPropertyValues, type PropertyValues } from '../api/schema'
import { useSessionStore } from './session'

/** Answers kept per project, expression and search: a filter reopened asks nothing again. */
const KEPT = 200

/**
 * The most frequent values of a property (GET /uba/api/meta/propertyValues), for the filter and
 * cohort-rule editors to offer while a value is typed. Answers are kept for the page's life.
 */
export const usePropertyValuesStore = defineStore('propertyValues', () => {
  const session = useSessionStore()
  const kept = new Map<string, Promise<PropertyValues>>()

  function valuesOf(expression: string, search: string): Promise<PropertyValues> {
    const auth = session.projectAuth
    const key = `${auth.appKey}\u0000${expression}\u0000${search}`
    const known = kept.get(key)
    if (known) return known
    const next = getPropertyValues(auth, expression, search)
    // a failed answer is asked again next time
    next.catch(() => kept.delete(key))
    if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string)
    kept.set(key, next)
    return next
  }

  return { valuesOf }
})
