/**
 * A one-page PDF (1.4) that shows one JPEG over the whole page, written by hand: the JPEG goes in
 * as it is (an image XObject with the DCTDecode filter, which every PDF reader decodes), so no PDF
 * library is needed. The page is the image's size at 96 pixels per inch; `scale` is how many
 * image pixels make one CSS pixel (2 for an image drawn at twice the resolution).
 */

const encoder = new TextEncoder()

/** A PDF text string: UTF-16BE with a byte-order mark, as hex, so any title survives. */
function pdfText(text: string): string {
  let hex = 'FEFF'
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase()
  return `<${hex}>`
}

/** D:YYYYMMDDHHmmSSZ, the date form of the document information dictionary. */
function pdfDate(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0')
  return `D:${date.getUTCFullYear()}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`
}

export interface PdfImage {
  jpeg: Uint8Array
  /** The JPEG's size in pixels. */
  width: number
  height: number
  scale: number
  title: string
  created?: Date
}

export function pdfWithImage(image: PdfImage): Uint8Array<ArrayBuffer> {
  const points = (px: number) => Math.round((px / image.scale) * 0.75 * 100) / 100
  const pageWidth = points(image.width)
  const pageHeight = points(image.height)
  const drawing = `q ${pageWidth} 0 0 ${pageHeight} 0 0 cm /Im0 Do Q\n`
  const parts: Uint8Array[] = []
  const offsets: number[] = []
  let length = 0
  const add = (chunk: string | Uint8Array) => {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk
    parts.push(bytes)
    length += bytes.length
  }
  const object = (body: string | (() => void)) => {
    offsets.push(length)
    add(`${offsets.length} 0 obj\n`)
    if (typeof body === 'string') add(body)
    else body()
    add('\nendobj\n')
  }

  // a comment of bytes above 127 on the second line tells transfer tools the file is binary
  add('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n')
  object('<< /Type /Catalog /Pages 2 0 R >>')
  object('<< /Type /Pages /Kids [3 0 R] /Count 1 >>')
  object(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageWidth} ${pageHeight}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>`)
  object(() => {
    add(`<< /Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${image.jpeg.length} >>\nstream\n`)
    add(image.jpeg)
    add('\nendstream')
  })
  object(`<< /Length ${encoder.encode(drawing).length} >>\nstream\n${drawing}endstream`)
  object(`<< /Title ${pdfText(image.title)} /Producer (UBA Desk) /CreationDate (${pdfDate(image.created ?? new Date())}) >>`)

  const xref = length
  // each entry is exactly 20 bytes: ten-digit offset, five-digit generation, type, two-byte end of line
  add(`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`)
  add(`trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R /Info ${offsets.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`)

  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
