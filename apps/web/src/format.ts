const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });

export const count = (n: number): string => integer.format(n);

/** "1 round", "1,200 tasks": a count with its noun in the number it needs. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

export const percent = (share: number): string => `${Math.round(share * 100)}%`;

export function seconds(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s % 60);
  if (m < 60) return rest ? `${m} min ${rest} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** Tokens in and out, compactly: "0 tokens", "12.3k tokens". */
export function tokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k tokens`;
}

/** Dollars: "$0.00", "$1.25", and "<$0.01" for a cost too small to show in cents. */
export function dollars(usd: number): string {
  return usd > 0 && usd < 0.005 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

/** A file name's stem from free text: "How is the Kestrel River managed?" → "how-is-the-kestrel-river-managed". */
export function slug(text: string, fallback = 'orrery-report'): string {
  const stem = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .slice(0, 60)
    .replace(/^-+|-+$/g, '');
  return stem || fallback;
}
