// Model text as HTML, rendered in Node through marked: raw HTML in the source is escaped (shown,
// never parsed), links keep only http(s), mailto and in-page targets, images become links (an
// export makes no network request), and control characters are made visible before parsing.
import { visibleText } from '@spine/protocol';
import { Marked, type Tokens } from 'marked';
import { escapeHtml, inert } from './escape.js';

/** True for the link targets an audit page may carry: http(s), mailto and `#fragment`. */
export function isAllowedHref(href: string): boolean {
  const trimmed = href.trim();
  if (trimmed.startsWith('#')) return /^#[A-Za-z0-9_.:-]*$/.test(trimmed);
  return /^(https?:\/\/|mailto:)[^\s<>"'`\\]+$/i.test(trimmed);
}

const marked = new Marked({
  async: false,
  gfm: true,
  breaks: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return inert(token.text);
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!isAllowedHref(token.href)) return `<span class="dropped-link">${text}</span>`;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href.trim())}" rel="noopener noreferrer"${title}>${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const label = `image: ${token.text || token.href}`;
      if (!isAllowedHref(token.href)) return `<span class="dropped-link">[${inert(label)}]</span>`;
      return `<a href="${escapeHtml(token.href.trim())}" rel="noopener noreferrer">[${inert(label)}]</a>`;
    },
  },
});

/** Renders Markdown from a model or a tool as safe HTML (see the module comment). */
export function renderMarkdownHtml(source: string): string {
  // Control characters become visible marks first (as `visibleText` writes them everywhere else),
  // so none reaches the parser or the page raw.
  const visible = source.replace(/\r\n/g, '\n').replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g,
    (char) => visibleText(char),
  );
  return marked.parse(visible) as string;
}
