import { computed, ref } from 'vue'

/** Chart colours that follow the app theme (theme.css), light or dark like the operating system. */

export interface ChartPalette {
  dark: boolean
  text: string
  muted: string
  faint: string
  border: string
  surface: string
  accent: string
  /** Categorical colours for series, distinguishable in both themes. */
  series: string[]
  /** From no retention to full retention. */
  scale: [string, string]
}

const LIGHT = ['#5750d8', '#1a9c8c', '#e0803a', '#d2457d', '#2f7fd8', '#7c9a2b', '#a15cc9', '#c29a12', '#5d6c84', '#c0503a']
const DARK = ['#8a85f5', '#3cc2ae', '#f09a55', '#ec6b9c', '#5aa2f0', '#a0c04a', '#c48ae6', '#e0b93c', '#93a2b8', '#e2765f']

const media = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null
const dark = ref(media?.matches ?? false)
media?.addEventListener('change', (event) => {
  dark.value = event.matches
})

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim()
  return value || fallback
}

function paletteOf(isDark: boolean): ChartPalette {
  return {
    dark: isDark,
    text: cssVar('--text', isDark ? '#e7e9ee' : '#1b2130'),
    muted: cssVar('--text-muted', isDark ? '#a3abb9' : '#5d6678'),
    faint: cssVar('--text-faint', isDark ? '#747d8c' : '#8a93a3'),
    border: cssVar('--border', isDark ? '#2a2f39' : '#e4e7ec'),
    surface: cssVar('--surface', isDark ? '#181b22' : '#ffffff'),
    accent: cssVar('--accent', isDark ? '#8a85f5' : '#5750d8'),
    series: isDark ? DARK : LIGHT,
    scale: isDark ? ['#1f2230', '#8a85f5'] : ['#f1f0fd', '#4a43c4'],
  }
}

/** The palette of the current theme; it changes (and charts redraw) only when the theme does. */
export function useChartPalette() {
  return computed(() => paletteOf(dark.value))
}
