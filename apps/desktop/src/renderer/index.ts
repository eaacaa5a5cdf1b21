import type { PaneflowApi } from '../api';
import { App } from './app';

declare global {
  interface Window {
    paneflow: PaneflowApi;
    paneflowApp: App;
  }
}

const app = new App(window.paneflow, document.getElementById('app')!);
window.paneflowApp = app;
void app.start();
