/** One retrievable unit of a corpus. `text` is what quotes are checked against, so it is never rewritten. */
export interface Passage {
  id: string;
  title: string;
  url?: string;
  text: string;
}
