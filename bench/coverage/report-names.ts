/** The report file name: lower-cased, runs of non-alphanumerics turned into '-', trimmed. */
export function topicSlug(topic: string): string {
  return topic
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Every name a scorer may look a report up by. "Alphanumeric" is read three ways for a title such as
 * "2023 Türkiye–Syria earthquake": ASCII only (2023-t-rkiye-syria-earthquake), any letter or digit
 * (2023-türkiye-syria-earthquake), or accents folded first (2023-turkiye-syria-earthquake). An ASCII
 * title has one name; the others get a copy under each.
 */
export function topicSlugs(topic: string): string[] {
  const folded = topic.normalize('NFKD').replace(/\p{M}+/gu, '');
  const unicode = topic
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return [...new Set([topicSlug(topic), unicode, topicSlug(folded)].filter(Boolean))];
}
