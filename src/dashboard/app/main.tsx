import { render } from 'preact';
import { App } from './App.js';
import { takeToken } from './session.js';

// First, before anything renders: the token leaves the address bar.
const token = takeToken();
if (!location.hash || location.hash === '#') history.replaceState(history.state, '', `${location.pathname}${location.search}#/jobs`);
const endpoint = document.body.dataset.endpoint || '/graphql';
render(<App endpoint={endpoint} initialToken={token} />, document.getElementById('app')!);
