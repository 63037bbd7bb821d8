import type { ChartOption } from '../../components/charts/echarts'
import { exportImage } from '../../components/charts/exportImage'
import type { ChartPalette } from '../../components/charts/palette'
import { pdfWithImage } from './pdf'

/**
 * A dashboard as one picture: its name and what it runs on above the tiles, and each tile as a
 * card with its title, its range and its whole chart (drawn again off screen, every series in the
 * legend), or its figure, or why it has none. Tiles keep their order and widths on a board
 * BOARD_WIDTH pixels wide; tiles starting on the same grid row share a row of the picture.
 * Drawn at twice the resolution.
 */

/** What a tile puts in the picture. */
export interface TilePicture {
  title: string
  /** The range, in words. */
  subtitle: string
  option: ChartOption | null
  stat: { value: string; label: string } | null
  /** Why there is no chart (deleted, failed, nothing on this range). */
  message: string
  x: number
  y: number
  w: number
  h: number
}

export const BOARD_WIDTH = 1200
const SCALE = 2
const COLUMNS = 12
const PAD = 24
const GAP = 16
const HEAD = 76
const ROW = 84
const TEXT_ONLY = 150
const FONT = 'sans-serif'

interface Placed {
  left: number
  width: number
  height: number
  picture: HTMLImageElement | null
  tile: TilePicture
}

async function chartPicture(tile: TilePicture, width: number, p: ChartPalette): Promise<{ image: HTMLImageElement; height: number } | null> {
  if (!tile.option) return null
  const chartHeight = Math.max(180, tile.h * ROW - 100)
  const drawn = exportImage(tile.option, width, chartHeight, { title: tile.title, subtitle: tile.subtitle, background: p.surface, text: p.text, muted: p.muted })
  const image = new Image()
  image.src = drawn.url
  await image.decode()
  return { image, height: drawn.height }
}

function textTile(ctx: CanvasRenderingContext2D, at: { left: number; top: number }, placed: Placed, p: ChartPalette): void {
  const { tile, width } = placed
  ctx.fillStyle = p.text
  ctx.font = `600 16px ${FONT}`
  ctx.fillText(tile.title, at.left + 16, at.top + 26, width - 32)
  ctx.fillStyle = p.muted
  ctx.font = `12px ${FONT}`
  ctx.fillText(tile.subtitle, at.left + 16, at.top + 46, width - 32)
  ctx.textAlign = 'center'
  if (tile.stat) {
    ctx.fillStyle = p.text
    ctx.font = `700 36px ${FONT}`
    ctx.fillText(tile.stat.value, at.left + width / 2, at.top + 100, width - 32)
    ctx.fillStyle = p.muted
    ctx.font = `13px ${FONT}`
    ctx.fillText(tile.stat.label, at.left + width / 2, at.top + 124, width - 32)
  } else {
    ctx.fillStyle = p.muted
    ctx.font = `13px ${FONT}`
    ctx.fillText(tile.message, at.left + width / 2, at.top + 96, width - 32)
  }
  ctx.textAlign = 'left'
}

/** The board drawn on a canvas; its size in pixels is SCALE times BOARD_WIDTH by the content's height. */
export async function drawBoard(heading: { title: string; subtitle: string }, tiles: TilePicture[], p: ChartPalette & { page: string }): Promise<HTMLCanvasElement> {
  const column = (BOARD_WIDTH - 2 * PAD - (COLUMNS - 1) * GAP) / COLUMNS
  const ordered = [...tiles].sort((a, b) => a.y - b.y || a.x - b.x)
  const rows: Placed[][] = []
  let rowY: number | null = null
  for (const tile of ordered) {
    const w = Math.min(COLUMNS, Math.max(1, tile.w))
    const x = Math.min(COLUMNS - w, Math.max(0, tile.x))
    const width = Math.round(w * column + (w - 1) * GAP)
    const chart = await chartPicture(tile, width, p)
    const placed = { left: Math.round(PAD + x * (column + GAP)), width, height: chart?.height ?? TEXT_ONLY, picture: chart?.image ?? null, tile }
    if (rowY !== tile.y) rows.push([])
    rowY = tile.y
    rows.at(-1)!.push(placed)
  }
  const heights = rows.map((row) => Math.max(...row.map((t) => t.height)))
  const height = HEAD + heights.reduce((sum, h) => sum + h + GAP, 0) + PAD - (rows.length ? GAP : 0)

  const canvas = document.createElement('canvas')
  canvas.width = BOARD_WIDTH * SCALE
  canvas.height = Math.ceil(height) * SCALE
  const ctx = canvas.getContext('2d')
  if (!ctx) throw new Error('This browser cannot draw an image')
  ctx.scale(SCALE, SCALE)
  ctx.fillStyle = p.page
  ctx.fillRect(0, 0, BOARD_WIDTH, height)
  ctx.fillStyle = p.text
  ctx.font = `700 20px ${FONT}`
  ctx.fillText(heading.title, PAD, 36, BOARD_WIDTH - 2 * PAD)
  ctx.fillStyle = p.muted
  ctx.font = `13px ${FONT}`
  ctx.fillText(heading.subtitle, PAD, 58, BOARD_WIDTH - 2 * PAD)

  let top = HEAD
  rows.forEach((row, r) => {
    for (const placed of row) {
      ctx.fillStyle = p.surface
      ctx.strokeStyle = p.border
      ctx.beginPath()
      ctx.roundRect(placed.left + 0.5, top + 0.5, placed.width - 1, heights[r] - 1, 8)
      ctx.fill()
      ctx.stroke()
      ctx.save()
      // the chart's square corners stay inside the card's round ones
      ctx.clip()
      if (placed.picture) ctx.drawImage(placed.picture, placed.left + 1, top + 1, placed.width - 2, placed.height - 2)
      else textTile(ctx, { left: placed.left, top }, placed, p)
      ctx.restore()
    }
    top += heights[r] + GAP
  })
  return canvas
}

function blobOf(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('The image could not be written'))), type, quality))
}

export const boardPng = (canvas: HTMLCanvasElement): Promise<Blob> => blobOf(canvas, 'image/png')

/** The board as a one-page PDF holding the picture as a JPEG. */
export async function boardPdf(canvas: HTMLCanvasElement, title: string): Promise<Blob> {
  // JPEG has no transparency: the page colour is already painted under everything
  const jpeg = new Uint8Array(await (await blobOf(canvas, 'image/jpeg', 0.92)).arrayBuffer())
  return new Blob([pdfWithImage({ jpeg, width: canvas.width, height: canvas.height, scale: SCALE, title })], { type: 'application/pdf' })
}
