/** Between a document's name and its section's heading in a passage title: "README.md > Installation". */
export const SECTION_SEPARATOR = ' > ';

/** A passage's title: the document it is from and, when it sits under one, the heading of its section. */
export function sectionTitle(document: string, heading: string | undefined): string {
  return heading ? `${document}${SECTION_SEPARATOR}${heading}` : document;
}

/** The document a passage title names: passages of one file's sections are one document. */
export function documentOfTitle(title: string): string {
  const at = title.indexOf(SECTION_SEPARATOR);
  return at > 0 ? title.slice(0, at) : title;
}
