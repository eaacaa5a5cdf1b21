import type { PaneflowApi } from '../api';
import { App } from './app';
import { PhoneLayout } from './phone';

declare global {
  interface Window {
    paneflow: PaneflowApi;
    paneflowApp: App;
  }
}

const root = document.getElementById('app')!;
const app = new App(window.paneflow, root);
new PhoneLayout(app, window.paneflow, root);
window.paneflowApp = app;
void app.start();
