import { onUnauthorized } from './api.js';
import { byId } from './dom.js';
import { sessionKey } from './session-key.js';
import { askView } from './views/ask-view.js';
import { keyPrompt } from './views/key-prompt.js';
import { reportView } from './views/report-view.js';
import { runView } from './views/run-view.js';
import { watchesView } from './views/watches-view.js';
import type { View } from './views/view.js';

const main = byId<HTMLElement>('main');
const forget = byId<HTMLButtonElement>('forget-key');
let current: View | undefined;
let asking = false;

const RUN_ROUTE = /^#\/runs\/([0-9a-f-]{36})(\/report)?$/i;

/** Routes by the URL's fragment: `#/`, `#/runs/<id>` (live), `#/runs/<id>/report`, `#/watches`. */
function route(): void {
  current?.dispose();
  asking = false;
  forget.hidden = !sessionKey.get();
  const m = RUN_ROUTE.exec(location.hash);
  current = m ? (m[2] ? reportView(main, m[1]!) : runView(main, m[1]!)) : location.hash === '#/watches' ? watchesView(main) : askView(main);
}

onUnauthorized((message) => {
  if (asking) return;
  asking = true;
  const hadKey = sessionKey.get() !== null;
  sessionKey.clear();
  current?.dispose();
  forget.hidden = true;
  current = keyPrompt(main, message, hadKey, route);
});

forget.addEventListener('click', () => {
  sessionKey.clear();
  route();
});
// The skip link moves focus without touching the fragment, which routes.
byId<HTMLAnchorElement>('skip-link').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', route);
route();
