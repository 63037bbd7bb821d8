import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router'
import type { IconName } from './components/icons'
import { useSessionStore } from './stores/session'

declare module 'vue-router' {
  interface RouteMeta {
    /** Sidebar label; routes without one are not in the sidebar. */
    nav?: string
    icon?: IconName
    /** Shown without the app shell (the connect screen). */
    bare?: boolean
    /** Grows with the window (charts, tables, the editor) instead of keeping reading width. */
    wide?: boolean
  }
}

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: { name: 'settings' } },
  { path: '/connect', name: 'connect', component: () => import('./views/Connect/ConnectView.vue'), meta: { bare: true } },
  { path: '/import', name: 'import', component: () => import('./views/Import/ImportView.vue'), meta: { nav: 'Import', icon: 'import' } },
  { path: '/schema', name: 'schema', component: () => import('./views/Schema/SchemaView.vue'), meta: { nav: 'Schema', icon: 'schema', wide: true } },
  { path: '/cohorts', name: 'cohorts', component: () => import('./views/Cohorts/CohortsView.vue'), meta: { nav: 'Cohorts', icon: 'cohorts', wide: true } },
  { path: '/charts/:kind?/:id?', name: 'charts', component: () => import('./views/Charts/ChartsView.vue'), meta: { nav: 'Charts', icon: 'charts', wide: true } },
  { path: '/dashboards/:id?', name: 'dashboards', component: () => import('./views/Dashboards/DashboardsView.vue'), meta: { nav: 'Dashboards', icon: 'dashboards', wide: true } },
  { path: '/people', name: 'people', component: () => import('./views/People/PeopleView.vue'), meta: { nav: 'People', icon: 'people', wide: true } },
  { path: '/sql', name: 'sql', component: () => import('./views/SQL/SQLView.vue'), meta: { nav: 'SQL', icon: 'sql', wide: true } },
  { path: '/settings', name: 'settings', component: () => import('./views/Settings/SettingsView.vue'), meta: { nav: 'Settings', icon: 'settings' } },
  { path: '/:rest(.*)*', redirect: { name: 'settings' } },
]

export const router = createRouter({
  // hash history: the server serves index.html at / only, and file-like paths stay its static files
  history: createWebHashHistory(),
  routes,
})

// Without an xtoken nothing can be loaded, so every screen leads to Connect first.
router.beforeEach((to) => {
  const session = useSessionStore()
  if (to.name !== 'connect' && !session.connected) return { name: 'connect' }
  return true
})
