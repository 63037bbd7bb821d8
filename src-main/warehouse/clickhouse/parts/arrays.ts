import type { ArraysPart } from '../../parts/arrays'

/**
 * ClickHouse arrays. Lists are never NULL here (18.16 has no Nullable(Array)): a missing list is
 * [], which every method below treats as DuckDB treats NULL where the domain relies on it (some:
 * false instead of NULL, used under COALESCE or as a filter). A lambda never captures a column
 * (18.16 does not read a column used only inside a lambda), and its parameter is `_uba_x`: 18.16
 * can put a column of a subquery in place of a parameter of the same name (seen with `x`).
 */
export const arrays: ArraysPart = {
  list: (items) => `[${items.join(', ')}]`,
  numberList: (placeholder) => `CAST(${placeholder} AS Array(Float64))`,
  hasAny: (list, items) => `hasAny(${list}, ${items})`,
  // a test of a Nullable element is Nullable, which 18.16's arrayExists refuses (error 43): a NULL
  // test counts as false (DuckDB's list_bool_or skips it; all-NULL gives NULL there, 0 here)
  some: (list, test) => `arrayExists(_uba_x -> ifNull(${test('_uba_x')}, 0), ${list})`,
  // no Nullable(Array) on 18.16: a missing list is stored as [], the one value that stands for it
  listMissing: (list, missing) => `${missing ? 'empty' : 'notEmpty'}(${list})`,
  map: (list, map) => `arrayMap(_uba_x -> ${map('_uba_x')}, ${list})`,
  // padding a Nullable list to one element adds a NULL (an if() of the two lists is refused by 18.16)
  orNullElement: (list) => `arrayResize(CAST(${list} AS Array(Nullable(String))), greatest(length(${list}), 1))`,
  // DuckDB's list_distinct drops NULL elements
  distinctElements: (list) => `arrayDistinct(arrayFilter(_uba_x -> isNotNull(_uba_x), ${list}))`,
  length: (list) => `length(${list})`,
  unnest: (list) => `arrayJoin(${list})`,
  collectDistinct: (expr, where) => `groupUniqArrayIf(${expr}, ${where})`,
  // the -Array combinator concatenates (18.16 has no arrayFlatten)
  concatLists: (expr, where) => `groupArrayArrayIf(${expr}, ${where})`,
}
