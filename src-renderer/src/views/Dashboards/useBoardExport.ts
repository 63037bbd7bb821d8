import { ref } from 'vue'
import { useChartPalette } from '../../components/charts/palette'
import { saveFile } from '../../desktop'
import { fileName } from '../../download'
import { boardPdf, boardPng, drawBoard, type TilePicture } from './exportBoard'

export type BoardFormat = 'png' | 'pdf'

/** Saves the dashboard on screen as one PNG, or as a PDF page holding that picture. */
export function useBoardExport() {
  const palette = useChartPalette()
  const exporting = ref<BoardFormat | null>(null)
  const exportError = ref('')

  async function exportBoard(format: BoardFormat, heading: { title: string; subtitle: string }, tiles: TilePicture[]): Promise<void> {
    if (exporting.value) return
    exporting.value = format
    exportError.value = ''
    try {
      const page = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() || palette.value.surface
      const canvas = await drawBoard(heading, tiles, { ...palette.value, page })
      saveFile(format === 'png' ? await boardPng(canvas) : await boardPdf(canvas, heading.title), fileName(heading.title, format))
    } catch (err) {
      exportError.value = `The ${format.toUpperCase()} could not be made: ${err instanceof Error ? err.message : String(err)}`
    } finally {
      exporting.value = null
    }
  }

  return { exporting, exportError, exportBoard }
}
