import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import type { Extension } from '@codemirror/state'
import { EditorView } from '@codemirror/view'
import { tags as t } from '@lezer/highlight'

/**
 * The editor drawn with the app's CSS variables, so it follows the light and dark themes by itself.
 * The syntax colours are variables too (--sql-*, set where the editor is mounted).
 */

const theme = EditorView.theme({
  '&': {
    height: '100%',
    color: 'var(--text)',
    backgroundColor: 'var(--surface)',
    fontSize: '13px',
  },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.65' },
  '.cm-content': { padding: '10px 0', caretColor: 'var(--accent)' },
  '.cm-line': { padding: '0 12px' },
  '.cm-gutters': {
    minWidth: '40px',
    border: 'none',
    borderRight: '1px solid var(--border)',
    backgroundColor: 'var(--surface-sunken)',
    color: 'var(--text-faint)',
  },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 8px 0 10px' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--accent) 6%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--text-muted)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--accent)', borderLeftWidth: '2px' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 24%, transparent) !important',
  },
  '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 18%, transparent)',
    outline: '1px solid color-mix(in srgb, var(--accent) 40%, transparent)',
  },
  '.cm-placeholder': { color: 'var(--text-faint)' },
  '.cm-tooltip': {
    border: '1px solid var(--border-strong)',
    borderRadius: 'var(--radius-sm)',
    backgroundColor: 'var(--surface)',
    color: 'var(--text)',
    boxShadow: '0 8px 24px rgba(16, 24, 40, 0.18)',
    overflow: 'hidden',
  },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'var(--font-mono)', fontSize: '12.5px', maxHeight: '16em' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '2px 10px 2px 6px', lineHeight: '1.6' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--accent-text)' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected] .cm-completionDetail': { color: 'inherit', opacity: '0.8' },
  '.cm-completionDetail': { marginLeft: '10px', color: 'var(--text-faint)', fontStyle: 'normal' },
  '.cm-completionMatchedText': { textDecoration: 'none', fontWeight: '700' },
  '.cm-completionIcon': { width: '1.2em', opacity: '0.7' },
  '.cm-completionInfo': { padding: '6px 10px', fontFamily: 'var(--font-sans)', fontSize: '12.5px' },
})

const highlight = HighlightStyle.define([
  { tag: t.keyword, color: 'var(--sql-keyword)', fontWeight: '600' },
  { tag: [t.typeName, t.standard(t.name)], color: 'var(--sql-builtin)' },
  { tag: t.string, color: 'var(--sql-string)' },
  // lang-sql tags "quoted identifiers" as a special string: they are names ("$os"), not text
  { tag: t.special(t.string), color: 'var(--sql-quoted)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--sql-number)' },
  { tag: [t.lineComment, t.blockComment], color: 'var(--text-faint)', fontStyle: 'italic' },
  { tag: [t.operator, t.punctuation, t.paren, t.brace, t.squareBracket], color: 'var(--text-muted)' },
  { tag: t.special(t.name), color: 'var(--sql-special)' },
])

export function editorTheme(): Extension {
  return [theme, syntaxHighlighting(highlight)]
}
