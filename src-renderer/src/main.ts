import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { router } from './router'
import './styles/theme.css'
import './styles/base.css'

const app = createApp(App)
app.use(createPinia())
app.use(router)
// mount after the first navigation, so the guard has chosen between Connect and the app shell
void router.isReady().then(() => app.mount('#app'))
