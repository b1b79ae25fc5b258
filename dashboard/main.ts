import { render } from 'preact';
import { html } from 'htm/preact';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { App } from './app.js';

render(html`<${App} />`, document.getElementById('app')!);
