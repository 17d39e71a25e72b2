import { h } from '../dom.js';
import { sessionKey } from '../session-key.js';
import type { View } from './view.js';

/** Asks for the API key after a 401; on submit keeps it for the session and goes on with `done`. */
export function keyPrompt(main: HTMLElement, message: string, hadKey: boolean, done: () => void): View {
  const input = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'api-key-help' });
  const form = h(
    'form',
    { class: 'card key-form', 'aria-labelledby': 'key-title', method: 'post' },
    h('h1', { id: 'key-title', tabindex: '-1' }, 'API key required'),
    h('p', { role: 'alert', class: 'error' }, hadKey ? `The server refused the key: ${message}` : 'This server needs an API key for every call.'),
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('p', { id: 'api-key-help', class: 'hint' }, 'Kept in this tab until it closes (session storage) and sent only in the Authorization header, never in a URL.'),
    h('button', { type: 'submit' }, 'Use this key'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    sessionKey.set(key);
    done();
  });
  main.replaceChildren(form);
  input.focus();
  return { dispose: () => undefined };
}
