import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/server'

describe('the plan at start-up', () => {
  it('takes in columns and events that a load committed without its plan update (a crash in between)', async () => {
    const first = await startTestServer()
    const { appKey } = first.project
    await first.app.ctx.warehouse.withConnection(appKey, 'UTC', async (conn) => {
      await conn.run('ALTER TABLE event_vd ADD COLUMN "coupon" VARCHAR')
      await conn.run('ALTER TABLE profile_vd ADD COLUMN "tier" DOUBLE')
      await conn.run("INSERT INTO event_vd (distinct_id, xwho, xwhat, xwhen, ds, coupon) VALUES (1, 'u', 'redeem', TIMESTAMPTZ '2024-01-01 00:00:00+00', 20240101, 'X1')")
    })
    const dataDir = first.dataDir
    await first.app.close()

    const again = await startTestServer({ dataDir })
    try {
      const meta = again.app.ctx.meta
      expect(meta.prepare("SELECT data_type, plan, data_status FROM plan_event_properties WHERE app_key = ? AND id = 'coupon'").get(appKey)).toEqual({ data_type: 'string', plan: 0, data_status: 1 })
      expect(meta.prepare("SELECT data_type, plan, data_status FROM plan_user_properties WHERE app_key = ? AND id = 'tier'").get(appKey)).toEqual({ data_type: 'number', plan: 0, data_status: 1 })
      expect(meta.prepare("SELECT plan, data_status FROM plan_events WHERE app_key = ? AND id = 'redeem'").get(appKey)).toEqual({ plan: 0, data_status: 1 })
    } finally {
      await again.stop()
    }
  })

  it('seeds the preset events and properties of a new project into the plan, not reported', async () => {
    const s = await startTestServer()
    try {
      const meta = s.app.ctx.meta
      const counts = meta.prepare(`SELECT
          (SELECT count(*) FROM plan_events WHERE app_key = ? AND preset = 1 AND plan = 1 AND data_status = 0) AS events,
          (SELECT count(*) FROM plan_event_properties WHERE app_key = ? AND preset = 1 AND global = 1) AS eventProperties,
          (SELECT count(*) FROM plan_user_properties WHERE app_key = ? AND preset = 1) AS userProperties`).get(s.project.appKey, s.project.appKey, s.project.appKey)
      // spec-notes: 21 preset events, 37 preset event properties, 16 preset user properties (distinct_id and xwho among them)
      expect(counts).toEqual({ events: 21, eventProperties: 37, userProperties: 16 })
    } finally {
      await s.stop()
    }
  })
})
