import type { Tile } from '../../api/dashboards'

/**
 * How the Dashboards view arranges tiles: in reading order (by row, then column) they flow left
 * to right over the 12 columns, a new row starting where a tile no longer fits. The app sets
 * widths of half (6) or all (12) columns and heights small (5 rows) or large (8); a layout
 * written through the API with other sizes keeps them until a tile is moved or resized here.
 */

export const COLUMNS = 12
export const HALF = 6
export const SMALL = 5
export const LARGE = 8

/** Tile indexes in reading order: by row, then column, then as stored. */
export function readingOrder(tiles: Tile[]): number[] {
  return tiles.map((_, i) => i).sort((a, b) => tiles[a].y - tiles[b].y || tiles[a].x - tiles[b].x || a - b)
}

/** x and y for tiles in this order, flowing over the grid; widths and heights stay. */
export function flow<T extends Tile>(tiles: T[]): T[] {
  let x = 0
  let y = 0
  let rowHeight = 0
  return tiles.map((tile) => {
    const w = Math.min(COLUMNS, Math.max(1, tile.w))
    if (x + w > COLUMNS) {
      y += rowHeight
      x = 0
      rowHeight = 0
    }
    const placed = { ...tile, x, y, w }
    x += w
    rowHeight = Math.max(rowHeight, tile.h)
    return placed
  })
}

/** A change of layout: the tiles in their new order (flowed), and for each the index it had before. */
export interface Arrangement<T extends Tile> {
  tiles: T[]
  from: number[]
}

function arranged<T extends Tile>(tiles: T[], order: number[], change: (tile: T, i: number) => T = (t) => t): Arrangement<T> {
  return { tiles: flow(order.map((i) => change(tiles[i], i))), from: order }
}

/** The tile at `index` moved to the reading position of `target` (drag and drop, or a step left or right). */
export function moveTile<T extends Tile>(tiles: T[], index: number, target: number): Arrangement<T> {
  const order = readingOrder(tiles).filter((i) => i !== index)
  const at = Math.max(0, Math.min(order.length, target))
  order.splice(at, 0, index)
  return arranged(tiles, order)
}

/** Where a tile stands in reading order. */
export const positionOf = (tiles: Tile[], index: number): number => readingOrder(tiles).indexOf(index)

/** The tile at `index` with a new width and/or height; the others flow around it. */
export function resizeTile<T extends Tile>(tiles: T[], index: number, size: { w?: number; h?: number }): Arrangement<T> {
  return arranged(tiles, readingOrder(tiles), (t, i) => (i === index ? { ...t, ...size } : t))
}

/** The tile at `index` taken off; the others flow up into its place. */
export function withoutTile<T extends Tile>(tiles: T[], index: number): Arrangement<T> {
  return arranged(tiles, readingOrder(tiles).filter((i) => i !== index))
}

export const isFull = (tile: Tile): boolean => tile.w > HALF
export const isLarge = (tile: Tile): boolean => tile.h >= LARGE
