import type { ArraysPart } from '../../parts/arrays'

/** DuckDB lists; a lambda's parameter is `x`. */
export const arrays: ArraysPart = {
  list: (items) => `[${items.join(', ')}]`,
  numberList: (placeholder) => `${placeholder}::DOUBLE[]`,
  hasAny: (list, items) => `list_has_any(${list}, ${items})`,
  some: (list, test) => `list_bool_or(list_transform(${list}, x -> ${test('x')}))`,
  listMissing: (list, missing) => `${list} IS ${missing ? '' : 'NOT '}NULL`,
  map: (list, map) => `list_transform(${list}, x -> ${map('x')})`,
  orNullElement: (list) => `CASE WHEN len(${list}) > 0 THEN ${list} ELSE [NULL::VARCHAR] END`,
  distinctElements: (list) => `list_distinct(${list})`,
  length: (list) => `len(${list})`,
  unnest: (list) => `unnest(${list})`,
  collectDistinct: (expr, where) => `list(DISTINCT ${expr}) FILTER (WHERE ${where})`,
  concatLists: (expr, where) => `flatten(list(${expr}) FILTER (WHERE ${where}))`,
}
