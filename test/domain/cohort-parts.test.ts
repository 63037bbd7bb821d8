import * as XLSX from 'xlsx'
import { describe, expect, it } from 'vitest'
import { crowdSql, crowdsOf } from '../../src-main/domain/analysis/request'
import { windowDays } from '../../src-main/domain/userSets/ruleSql'
import { lastDueTime, zonedTime } from '../../src-main/domain/cohorts/scheduler'
import { MAX_FILE_BYTES, readColumns } from '../../src-main/domain/userSets/sheet'
import { AppError } from '../../src-main/domain/errors'

describe('event rule windows', () => {
  it('counts relative days back from today, both ends included', () => {
    expect(windowDays({ kind: 'relative', from: 6, to: 0 }, '2024-03-01')).toEqual(['2024-02-24', '2024-03-01'])
    expect(windowDays({ kind: 'relative', from: 7, to: 1 }, '2024-03-01')).toEqual(['2024-02-23', '2024-02-29'])
    expect(windowDays({ kind: 'relative', from: 0, to: 0 }, '2024-03-01')).toEqual(['2024-03-01', '2024-03-01'])
    expect(windowDays({ kind: 'absolute', from: '2024-01-01', to: '2024-01-05' }, '2024-03-01')).toEqual(['2024-01-01', '2024-01-05'])
  })
})

describe('the daily schedule', () => {
  it('finds a local hour in a time zone, across daylight saving changes', () => {
    expect(zonedTime('2024-01-02', 3, 'Asia/Shanghai')).toBe(Date.parse('2024-01-01T19:00:00Z'))
    // New York springs forward at 02:00 on 2024-03-10: 03:00 is already summer time (UTC-4)
    expect(zonedTime('2024-03-10', 3, 'America/New_York')).toBe(Date.parse('2024-03-10T07:00:00Z'))
    expect(zonedTime('2024-03-09', 3, 'America/New_York')).toBe(Date.parse('2024-03-09T08:00:00Z'))
    expect(zonedTime('2024-11-03', 3, 'America/New_York')).toBe(Date.parse('2024-11-03T08:00:00Z'))
    expect(zonedTime('2024-06-01', 3, 'Asia/Kolkata')).toBe(Date.parse('2024-05-31T21:30:00Z'))
  })

  it('is due from 03:00 on, the day before until then', () => {
    expect(lastDueTime(Date.parse('2024-06-01T02:59:59Z'), 'UTC')).toBe(Date.parse('2024-05-31T03:00:00Z'))
    expect(lastDueTime(Date.parse('2024-06-01T03:00:00Z'), 'UTC')).toBe(Date.parse('2024-06-01T03:00:00Z'))
    expect(lastDueTime(Date.parse('2024-03-01T01:00:00Z'), 'UTC')).toBe(Date.parse('2024-02-29T03:00:00Z'))
  })
})

describe('files of values', () => {
  const csv = (text: string, columns = 1) => readColumns({ data: Buffer.from(text), filename: 'v.csv' }, columns)

  it('reads CSV cells as text: quotes, a byte-order mark, spaces and empty rows', () => {
    expect(csv('\uFEFFxwho\n"a,b"\n  007 \n\n1e3\n')).toEqual([['xwho'], ['a,b'], ['007'], ['1e3']])
    expect(csv('u1,gold\nu2,\n,x\n', 2)).toEqual([['u1', 'gold'], ['u2', ''], ['', 'x']])
    expect(csv('名前\n张三\n')).toEqual([['名前'], ['张三']])
  })

  it('reads the first sheet of a workbook, numbers as their digits and dates as local times', () => {
    const book = XLSX.utils.book_new()
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['id'], [13800000000], [new Date(2024, 0, 5, 10, 20, 30)], [true]]), 'first')
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['ignored', 'x']]), 'second')
    const data = XLSX.write(book, { type: 'buffer', bookType: 'xlsx', cellDates: true }) as Buffer
    expect(readColumns({ data, filename: 'v.xlsx' }, 1)).toEqual([['id'], ['13800000000'], ['2024-01-05 10:20:30'], ['true']])
  })

  it('refuses extra columns and files over the limit, naming file', () => {
    const refusal = (f: () => unknown) => {
      try {
        f()
      } catch (err) {
        return err instanceof AppError ? [err.status, err.data] : err
      }
      return 'accepted'
    }
    expect(refusal(() => csv('a\nb,c\n'))).toEqual([400, ['file']])
    expect(refusal(() => readColumns({ data: Buffer.alloc(MAX_FILE_BYTES + 1, 'a'), filename: 'v.csv' }, 1))).toEqual([400, ['file']])
    expect(refusal(() => readColumns({ data: Buffer.alloc(MAX_FILE_BYTES, 'a'), filename: 'v.csv' }, 1))).toBe('accepted')
  })
})

describe('the cohort filter of the analyses', () => {
  it('keeps everyone for $ALL and the union of the cohorts otherwise', () => {
    expect(crowdSql(['$ALL'])).toBe('true')
    expect(crowdSql(['c1', '$ALL'])).toBe('true')
    expect(crowdSql(['c1', 'c22', 'c1'])).toBe('e.distinct_id IN (SELECT distinct_id FROM cohort_c1 UNION ALL SELECT distinct_id FROM cohort_c22)')
    expect(crowdSql(['c3'], 'u.distinct_id')).toBe('u.distinct_id IN (SELECT distinct_id FROM cohort_c3)')
    expect(() => crowdSql(['c1; DROP TABLE event_vd'])).toThrow()
  })

  it('asks the cohort check about every code but $ALL', () => {
    const asked: string[] = []
    const check = (code: string) => (asked.push(code), code === 'c2' ? 'the cohort c2 has no members yet' : null)
    expect(crowdsOf(['$ALL', 'c1'], check)).toEqual(['$ALL', 'c1'])
    expect(() => crowdsOf(['c1', 'c2'], check)).toThrow(/crowds\[1\]: the cohort c2 has no members yet/)
    expect(asked).toEqual(['c1', 'c1', 'c2'])
  })
})
