import { createHash } from 'node:crypto';

/** A short, deterministic hex digest of a string. */
export function shortHash(text: string, length = 10): string {
  return createHash('sha1').update(text).digest('hex').slice(0, length);
}

/** Hash of a whole content set (used as a cache key). */
export function contentHash(parts: Iterable<string>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p);
    h.update('\u0000');
  }
  return h.digest('hex').slice(0, 32);
}

/** Lowercase slug made of letters, digits and dashes. */
export function slugify(text: string, maxLength = 60): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, maxLength).replace(/-+$/g, '');
}

/** An id made safe for logs, URLs and Redis keys: keeps letters, digits, `/ . _ - #`, replaces the rest. */
export function safeId(text: string, maxLength = 200): string {
  return text
    .replace(/\\/g, '/')
    .replace(/[^A-Za-z0-9/._#-]+/g, '_')
    .replace(/^[/._]+/, '')
    .slice(0, maxLength);
}
