/**
 * The API key, entered once and kept for this tab's session (sessionStorage): it goes out only in the
 * Authorization header, never in a URL, and it is gone when the tab closes.
 */
const STORAGE_KEY = 'orrery.apiKey';
let memory: string | null = null;

export const sessionKey = {
  get(): string | null {
    try {
      return sessionStorage.getItem(STORAGE_KEY) ?? memory;
    } catch {
      return memory;
    }
  },
  set(key: string): void {
    memory = key;
    try {
      sessionStorage.setItem(STORAGE_KEY, key);
    } catch {
      /* storage refused (private mode): the key lives in memory until the page closes */
    }
  },
  clear(): void {
    memory = null;
    try {
      sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      /* nothing stored */
    }
  },
};
