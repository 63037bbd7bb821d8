/// <reference types="vite/client" />
import type { UbaDeskBridge } from '../../src-main/preload/bridge'

declare global {
  interface Window {
    /** Present only inside the desktop app (set by the preload); absent in a plain browser. */
    readonly ubaDesk?: UbaDeskBridge
  }
}
