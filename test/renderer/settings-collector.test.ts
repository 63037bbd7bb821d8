import { connect } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openView, RESULTS } from '../helpers/browser'
import { useBrowserTest } from '../helpers/browserTest'
import { rawRequest } from '../helpers/raw'

const ui = useBrowserTest()

/** Nothing listens on the port: a new connection is refused. */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'))
  })

describe('Settings: the collector on your network', () => {
  it('switches the /up-only listener on, shows the address to put into the SDK, and off again', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null)
    const card = page.getByTestId('collector-listener')
    await card.getByText(`${ui.server.url}/up`).waitFor()
    expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('false')
    // tests listen on loopback only: this machine, any free port
    await card.getByLabel('Listen on').selectOption('127.0.0.1')
    await card.getByLabel('Port').fill('0')
    await card.getByRole('switch', { name: 'Collector on your network' }).click()
    const url = card.getByTestId('collector-url')
    await url.waitFor()
    const address = (await url.textContent())!.trim()
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/up$/)
    const port = Number(new URL(address).port)
    expect(port).not.toBe(ui.server.app.port)
    expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('true')
    expect(await card.getByLabel('Port').inputValue()).toBe(String(port))
    expect(await card.getByLabel('Listen on').isDisabled()).toBe(true)
    await page.screenshot({ path: join(RESULTS, 'settings-collector.png'), fullPage: true })
    // it serves /up alone
    const health = await rawRequest(port, 'GET', '/health', { host: `192.168.1.9:${port}` })
    expect(health.body).toEqual({ code: 404, msg: 'no endpoint /health', data: null })

    await card.getByRole('switch').click()
    await url.waitFor({ state: 'detached' })
    expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('false')
    expect(await refused(port)).toBe(true)
    expect(problems).toEqual([])
  })

  it('shows why the listener could not start', async () => {
    const { page, problems } = await openView(ui.browser, ui.server, null, { allow400: true })
    const card = page.getByTestId('collector-listener')
    await card.getByLabel('Listen on').selectOption('127.0.0.1')
    await card.getByLabel('Port').fill(String(ui.server.app.port))
    await card.getByRole('switch').click()
    await card.getByRole('alert').filter({ hasText: `port ${ui.server.app.port} is already in use on 127.0.0.1` }).waitFor()
    expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('false')
    expect(problems).toEqual([])
  })
})
