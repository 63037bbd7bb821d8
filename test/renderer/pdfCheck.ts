/**
 * A strict reader for the small PDFs the app writes: it follows the file as a PDF reader does
 * (startxref -> cross-reference table -> trailer -> catalog -> pages -> page -> image) and throws
 * at the first thing out of place: an offset that does not land on its object, a stream whose
 * /Length is not its size, a missing entry.
 */

export interface CheckedPdf {
  title: string
  mediaBox: number[]
  content: string
  image: { width: number; height: number; filter: string; bytes: Uint8Array }
}

function fail(why: string): never {
  throw new Error(`not a valid PDF: ${why}`)
}

export function checkPdf(file: Buffer): CheckedPdf {
  const text = file.toString('latin1')
  if (!text.startsWith('%PDF-1.')) fail('no %PDF header')
  if (!/%%EOF\s*$/.test(text)) fail('no %%EOF at the end')
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1] ?? fail('no startxref'))
  const table = /^xref\n0 (\d+)\n/.exec(text.slice(start)) ?? fail(`startxref ${start} does not point at an xref table`)
  const size = Number(table[1])
  const entriesAt = start + table[0].length
  const offsets: number[] = []
  for (let i = 0; i < size; i++) {
    const entry = text.slice(entriesAt + 20 * i, entriesAt + 20 * (i + 1))
    const m = /^(\d{10}) (\d{5}) ([nf])(?: \n|\r\n| \r)$/.exec(entry) ?? fail(`xref entry ${i} is not 20 bytes of the right form: ${JSON.stringify(entry)}`)
    offsets.push(m[3] === 'n' ? Number(m[1]) : -1)
  }
  const trailer = /^trailer\s*<<(.*?)>>\s*startxref/s.exec(text.slice(entriesAt + 20 * size)) ?? fail('no trailer after the xref table')
  if (Number(/\/Size (\d+)/.exec(trailer[1])?.[1]) !== size) fail('the trailer /Size differs from the xref table')

  const objects = new Map<number, { dict: string; stream: Uint8Array | null }>()
  const object = (n: number) => {
    const known = objects.get(n)
    if (known) return known
    const at = offsets[n] ?? fail(`object ${n} is not in the xref table`)
    if (at < 0 || !text.startsWith(`${n} 0 obj`, at)) fail(`object ${n}: offset ${at} does not start "${n} 0 obj"`)
    const end = text.indexOf('endobj', at)
    const body = text.slice(at + `${n} 0 obj`.length, end)
    const streamAt = body.indexOf('stream\n')
    let found: { dict: string; stream: Uint8Array | null }
    if (streamAt < 0) found = { dict: body.trim(), stream: null }
    else {
      const dict = body.slice(0, streamAt).trim()
      const length = Number(/\/Length (\d+)/.exec(dict)?.[1] ?? fail(`stream ${n} has no /Length`))
      const from = at + `${n} 0 obj`.length + streamAt + 'stream\n'.length
      if (!/^\r?\n?endstream/.test(text.slice(from + length, from + length + 12))) fail(`stream ${n}: /Length ${length} does not end at endstream`)
      found = { dict, stream: new Uint8Array(file.subarray(from, from + length)) }
    }
    objects.set(n, found)
    return found
  }
  const ref = (dict: string, key: string) => Number(new RegExp(`/${key} (\\d+) 0 R`).exec(dict)?.[1] ?? fail(`no /${key} reference in ${dict}`))
  const needs = (dict: string, what: string) => dict.includes(what) || fail(`${what} missing in ${dict}`)

  const catalog = object(ref(trailer[1], 'Root')).dict
  needs(catalog, '/Type /Catalog')
  const pages = object(ref(catalog, 'Pages')).dict
  needs(pages, '/Type /Pages')
  const kids = /\/Kids \[([^\]]*)\]/.exec(pages)?.[1].match(/(\d+) 0 R/g) ?? fail('no /Kids')
  if (Number(/\/Count (\d+)/.exec(pages)?.[1]) !== kids.length) fail('/Count differs from /Kids')
  const page = object(Number(kids[0].split(' ')[0])).dict
  needs(page, '/Type /Page')
  const mediaBox = (/\/MediaBox \[([^\]]*)\]/.exec(page)?.[1] ?? fail('no /MediaBox')).trim().split(/\s+/).map(Number)
  const content = object(ref(page, 'Contents'))
  const drawing = Buffer.from(content.stream ?? fail('/Contents is no stream')).toString('latin1')
  const name = /\/(\w+) Do/.exec(drawing)?.[1] ?? fail('the page draws no XObject')
  const image = object(ref(page, name))
  needs(image.dict, '/Subtype /Image')
  const info = object(ref(trailer[1], 'Info')).dict
  const hex = /\/Title <FEFF([0-9A-F]*)>/.exec(info)?.[1] ?? fail('no /Title')
  const title = String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16)))
  return {
    title,
    mediaBox,
    content: drawing,
    image: {
      width: Number(/\/Width (\d+)/.exec(image.dict)?.[1]),
      height: Number(/\/Height (\d+)/.exec(image.dict)?.[1]),
      filter: /\/Filter \/(\w+)/.exec(image.dict)?.[1] ?? '',
      bytes: image.stream ?? fail('the image is no stream'),
    },
  }
}

/** Width and height from a PNG's IHDR. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.subarray(1, 4).toString() !== 'PNG') throw new Error('not a PNG')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

/** Width and height from a JPEG's frame header (SOF0-SOF2), walking its markers from SOI. */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('not a JPEG (no SOI)')
  if (bytes.at(-2) !== 0xff || bytes.at(-1) !== 0xd9) throw new Error('the JPEG is cut (no EOI)')
  let at = 2
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) throw new Error(`no marker at ${at}`)
    const marker = bytes[at + 1]
    const length = (bytes[at + 2] << 8) | bytes[at + 3]
    if (marker >= 0xc0 && marker <= 0xc2) return { height: (bytes[at + 5] << 8) | bytes[at + 6], width: (bytes[at + 7] << 8) | bytes[at + 8] }
    at += 2 + length
  }
  throw new Error('no frame header')
}
