import { describe, expect, it } from 'vitest'
import { cycles, readImports, type FileImport } from './importGraph'

// The layer rules of docs/layers.md, read from the import graph of src-main: server routes ->
// domain -> expr -> warehouse -> engine, with store/meta for SQLite. A rule broken names the
// file and line of each import that breaks it.

const DOMAIN = 'src-main/domain'

const imports = readImports('src-main')
const under = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`)
const shown = (list: FileImport[]) => list.map((i) => `${i.from}:${i.line} -> ${i.to}`)

/**
 * The graph of the domain's areas: its top folders (a subfolder such as analysis/cells belongs to
 * its area), named relative to src-main/domain; '' is the domain's own files (context, errors).
 */
function domainFolders(): Map<string, Map<string, FileImport[]>> {
  const area = (file: string) => (file.slice(DOMAIN.length + 1).includes('/') ? file.slice(DOMAIN.length + 1).split('/')[0] : '')
  const graph = new Map<string, Map<string, FileImport[]>>()
  for (const i of imports) {
    if (!under(i.from, DOMAIN) || !under(i.to, DOMAIN) || area(i.from) === area(i.to)) continue
    const edges = graph.get(area(i.from)) ?? new Map<string, FileImport[]>()
    edges.set(area(i.to), [...(edges.get(area(i.to)) ?? []), i])
    graph.set(area(i.from), edges)
  }
  return graph
}


describe('layers of src-main', () => {
  it('reads the imports of every file (the graph is not empty and every import resolves)', () => {
    expect(imports.length).toBeGreaterThan(500)
    expect(imports.some((i) => i.from === 'src-main/domain/analysis/funnels.ts' && i.to === 'src-main/domain/analysis/funnelSql.ts')).toBe(true)
  })

  it('finds a cycle when there is one (the search itself, on a made-up graph)', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set<string>()],
    ])
    expect(cycles(graph)).toEqual([['a', 'b', 'c']])
    graph.get('c')!.delete('a')
    expect(cycles(graph)).toEqual([])
  })

  it('has no cycle between the folders of src-main/domain', () => {
    const graph = domainFolders()
    const edges = new Map([...graph].map(([a, to]) => [a, new Set(to.keys())]))
    const found = cycles(edges).map((folders) => ({
      folders,
      imports: folders.flatMap((a) => folders.flatMap((b) => shown(a === b ? [] : (graph.get(a)?.get(b) ?? [])))),
    }))
    expect(found).toEqual([])
  })

  it('keeps src-main/store and src-main/warehouse from importing src-main/domain', () => {
    const upward = imports.filter((i) => (under(i.from, 'src-main/store') || under(i.from, 'src-main/warehouse')) && under(i.to, DOMAIN))
    expect(shown(upward)).toEqual([])
  })

  it('keeps src-main/domain from importing src-main/server', () => {
    expect(shown(imports.filter((i) => under(i.from, DOMAIN) && under(i.to, 'src-main/server')))).toEqual([])
  })
})
