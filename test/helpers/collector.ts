import { eventually, type TestServer } from './server'

/** A record as the SDKs build it (the browser SDK's $lib by default). */
export const sdkRecord = (appid: string | undefined, xwho: string, xwhat: string, xcontext: Record<string, unknown> = {}) => ({
  ...(appid === undefined ? {} : { appid }),
  xwho,
  xwhat,
  xwhen: 1717200000000,
  xcontext: { $lib: 'JS', $lib_version: '4.1.0', $platform: 'JS', $debug: 0, $is_login: false, ...xcontext },
})

/** Starts or stops a project's data stream and waits until it has switched. */
export async function switchStreamAndWait(s: TestServer, appKey: string, on: boolean): Promise<void> {
  await s.call('POST', `/uba/manage/enterprise/projects/${appKey}/stream`, { headers: { xtoken: s.creds.xtoken }, body: { streamSwitch: on } })
  await eventually(async () => (await s.call('GET', `/uba/manage/enterprise/projects/${appKey}`, { headers: { xtoken: s.creds.xtoken } })).body.stream === (on ? 2 : 0))
}
