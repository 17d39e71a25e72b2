/**
 * Element builders. Text always goes in as text nodes and attributes through setAttribute, never as markup:
 * whatever a run holds (a topic, a source's title or text) cannot become HTML on this page.
 */
export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

function apply(el: Element, attrs: Attrs | null | undefined, children: Child[]): void {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (typeof value === 'function') {
      if (!name.startsWith('on')) throw new Error(`attribute ${name}: a function must be an on* listener`);
      el.addEventListener(name.slice(2), value);
    } else if (name.startsWith('on') || name === 'style') {
      // Inline handlers and styles are what a strict CSP forbids; listeners and classes are the way here.
      throw new Error(`attribute ${name} is not allowed`);
    } else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs, children);
  return el;
}

/** An element by id that the page's own markup or a view created: missing means a bug, so it throws. */
export function byId<T extends HTMLElement>(id: string, root: ParentNode = document): T {
  const el = root.querySelector<T>(`#${CSS.escape(id)}`);
  if (!el) throw new Error(`#${id} is missing`);
  return el;
}
