import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { peekUploadSender } from '../../src-main/domain/ingest/uploadPeek'

/**
 * A refused-busy upload is not decoded: its sender (appid, SDK) is read from its first kilobytes,
 * for every SDK's wire format, and a hostile one gives nulls at bounded cost, never an error.
 */

/** 300 records of ~1 KB: the readable prefix holds the first ones only. */
const records = (appid: string | undefined, lib: string, version: string) =>
  JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ ...(appid ? { appid } : {}), xwho: `u${i}`, xwhat: 'view', xwhen: 1717200000000, xcontext: { $lib: lib, $lib_version: version, note: 'é'.repeat(500) } })))

const b64gz = (text: string) => gzipSync(text).toString('base64')

describe('reading the sender of an upload that is not decoded', () => {
  it('reads the appid and SDK of every transport', () => {
    const js = records(undefined, 'js', '4.1.0')
    const python = records('shop', 'python', '4.2.1')
    const java = records('shop', 'Java', '3.6.0')
    const node = records('shop', 'Node', '1.1.0')
    const cases: [string, Parameters<typeof peekUploadSender>[0]][] = [
      ['image GET: base64 in the address', { query: `appid=shop&data=${encodeURIComponent(Buffer.from(js).toString('base64'))}&send_type=img`, body: null }],
      ['image GET: gzip then base64', { query: `appid=shop&data=${encodeURIComponent(b64gz(js))}`, body: null }],
      ['browser post: raw JSON, appid in the address', { query: 'appid=shop', body: Buffer.from(js) }],
      ['Python: base64 of gzip, no field name', { query: '', body: Buffer.from(b64gz(python)) }],
      ['Java: base64 of gzip, Content-Encoding UTF-8', { query: '', body: Buffer.from(b64gz(java)), contentEncoding: 'UTF-8' }],
      ['Node: JSON array', { query: '', body: Buffer.from(node) }],
      ['a data= form with the appid beside it', { query: '', body: Buffer.from(`data=${encodeURIComponent(b64gz(js))}&appid=shop&gzip=1`) }],
      ['Content-Encoding gzip', { query: '', body: gzipSync(node), contentEncoding: 'gzip' }],
      ['Content-Encoding deflate', { query: '', body: deflateSync(node), contentEncoding: 'deflate' }],
      ['Content-Encoding br', { query: '', body: brotliCompressSync(node), contentEncoding: 'br' }],
      ['raw gzip bytes', { query: '', body: gzipSync(node) }],
    ]
    const read = Object.fromEntries(cases.map(([name, request]) => [name, peekUploadSender(request)]))
    const sender = (lib: string, libVersion: string) => ({ appid: 'shop', lib, libVersion })
    expect(read).toEqual({
      'image GET: base64 in the address': sender('js', '4.1.0'),
      'image GET: gzip then base64': sender('js', '4.1.0'),
      'browser post: raw JSON, appid in the address': sender('js', '4.1.0'),
      'Python: base64 of gzip, no field name': sender('python', '4.2.1'),
      'Java: base64 of gzip, Content-Encoding UTF-8': sender('Java', '3.6.0'),
      'Node: JSON array': sender('Node', '1.1.0'),
      'a data= form with the appid beside it': sender('js', '4.1.0'),
      'Content-Encoding gzip': sender('Node', '1.1.0'),
      'Content-Encoding deflate': sender('Node', '1.1.0'),
      'Content-Encoding br': sender('Node', '1.1.0'),
      'raw gzip bytes': sender('Node', '1.1.0'),
    })
  })

  it("follows the record's own appid over the address's, as routing does", () => {
    expect(peekUploadSender({ query: 'appid=other', body: Buffer.from(records('shop', 'js', '1')) })).toMatchObject({ appid: 'shop' })
  })

  it('gives nulls, not an error, for what it cannot read, and stays cheap on a zip bomb', () => {
    const none = { appid: null, lib: null, libVersion: null }
    expect(peekUploadSender({ query: 'data=%E0%A4%A', body: null })).toEqual(none)
    expect(peekUploadSender({ query: 'appid=%ZZ', body: Buffer.from('not an upload') })).toEqual(none)
    expect(peekUploadSender({ query: '', body: Buffer.from([0x1f, 0x8b, 0, 1, 2]), contentEncoding: 'gzip' })).toEqual(none)
    // 64 MB of zeros in 64 KB of gzip: its first kilobytes unzip past the 1 MB cap and are not read
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    const start = performance.now()
    expect(peekUploadSender({ query: 'appid=shop', body: Buffer.from(bomb.toString('base64')) })).toEqual({ appid: 'shop', lib: null, libVersion: null })
    expect(performance.now() - start).toBeLessThan(200)
  })
})
