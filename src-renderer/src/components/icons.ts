/** Small line icons drawn inline (no icon font: the CSP and the offline rule allow nothing remote). */
export const PATHS = {
  import: 'M12 15V4M7.5 8.5 12 4l4.5 4.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3',
  schema: 'M5 4h14a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2ZM3 10h18M9 10v10',
  cohorts: 'M6 8a3 3 0 1 0 6 0a3 3 0 1 0-6 0M3 19a6 6 0 0 1 12 0M15.5 5.3a3 3 0 0 1 0 5.4M17.5 14.2A6 6 0 0 1 21 19',
  charts: 'M4 20h16M7 16v-4M12 16V7M17 16v-6',
  dashboards: 'M4 4h7v7H4ZM13 4h7v5h-7ZM13 11h7v9h-7ZM4 13h7v7H4Z',
  people: 'M8 8a4 4 0 1 0 8 0a4 4 0 1 0-8 0M4 20a8 8 0 0 1 16 0',
  sql: 'M8 8l-4 4 4 4M16 8l4 4-4 4M13.5 5.5l-3 13',
  settings: 'M4 7h9M17 7h3M13 7a2 2 0 1 0 4 0a2 2 0 1 0-4 0M4 17h3M11 17h9M7 17a2 2 0 1 0 4 0a2 2 0 1 0-4 0',
  external: 'M14 4h6v6M20 4l-9 9M18 14v4a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h4',
  copy: 'M11 9h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-8a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2ZM5 15H4.5A1.5 1.5 0 0 1 3 13.5V5a2 2 0 0 1 2-2h8.5A1.5 1.5 0 0 1 15 4.5V5',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  alert: 'M12 8v5M12 16.5v.01M10.3 3.9 2.6 17.5A2 2 0 0 0 4.3 20.5h15.4a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0Z',
  search: 'M4 11a7 7 0 1 0 14 0a7 7 0 1 0-14 0M20 20l-4-4',
  close: 'M6 6l12 12M18 6 6 18',
  plus: 'M12 5v14M5 12h14',
  file: 'M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8l-5-5ZM14 3v5h5',
  trash: 'M4 7h16M10 11v6M14 11v6M6 7l1 12a2 2 0 0 0 2 2h6a2 2 0 0 0 2-2l1-12M9 7V4h6v3',
  chevronRight: 'M9 6l6 6-6 6',
  arrowUp: 'M12 19V5M6 11l6-6 6 6',
  arrowDown: 'M12 5v14M6 13l6 6 6-6',
  refresh: 'M20 12a8 8 0 1 1-2.34-5.66L20 8.5M20 3.5v5h-5',
} as const

export type IconName = keyof typeof PATHS
