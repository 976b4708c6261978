// The page around the views: one self-contained document with inline CSS, a Content-Security-
// Policy that allows that stylesheet (by hash) and at most one inline script (by hash), and
// nothing else: no network, no images, no forms, no frames.
import { createHash } from 'node:crypto';
import { escapeHtml } from './escape.js';

/** The stylesheet of every page (inline; allowed by its hash). */
export const PAGE_CSS = `
:root{color-scheme:light dark;--fg:#1d1f21;--bg:#fff;--mute:#666;--line:#ddd;--ok:#116b2e;--bad:#b00020;--ins:#d8f5dd;--del:#fbe0e3;--code:#f5f5f5}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#16181b;--mute:#9a9a9a;--line:#33373c;--ok:#5fd08a;--bad:#ff7b8a;--ins:#173d22;--del:#4a1d24;--code:#202328}}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0;overflow-wrap:anywhere}
main{display:flex;flex-direction:column;max-width:1100px;margin:0 auto;padding:16px}
header.session{order:0}#totals{order:1}#timeline{order:2}#verification{order:3}#children{order:4}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;border-bottom:1px solid var(--line);padding-bottom:4px}
.meta,.mute{color:var(--mute);font-size:12px}
section.turn{border-left:3px solid var(--line);padding-left:12px;margin:12px 0}
.ev{margin:6px 0;scroll-margin-top:8px}.ev:target{outline:2px solid #e0a800;outline-offset:2px}
.user{background:var(--code);padding:6px 10px;border-radius:4px}
.req{font-size:12px;border:1px solid var(--line);border-radius:4px;padding:4px 8px}
.req summary{cursor:pointer}.tool{border:1px solid var(--line);border-radius:4px;padding:6px 10px}
.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
.ctl{background:#fff3bf;color:#7a4b00;border-radius:2px;font-family:monospace}
pre{background:var(--code);padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;max-height:40em;overflow-y:auto;margin:4px 0}
ins{background:var(--ins);text-decoration:none}del{background:var(--del)}
table{border-collapse:collapse;font-size:13px;display:block;max-width:100%;overflow-x:auto;overflow-wrap:break-word}td,th{border:1px solid var(--line);padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:left}
.cut{border-top:2px dashed #e0a800;margin:6px 0;font-size:12px;color:#a06d00}
.dropped-link{text-decoration:underline dotted}
.pager a{margin-right:12px}
.src{font-size:11px;border:1px solid var(--line);border-radius:8px;padding:0 6px}.src[data-source="memory"]{background:#e8e0ff;color:#3b2a7a}.src[data-source="mcp"]{background:#dff1ff;color:#0b4a75}
caption{text-align:left;font-size:12px;color:var(--mute)}
.child-session{order:5;display:flex;flex-direction:column;border-top:3px double var(--line);margin-top:24px}
.child-session>h2,.child-session>p.mute{order:-1}.child-session>[id$="-totals"]{order:1}.child-session>[id$="-timeline"]{order:2}.child-session>[id$="-verification"]{order:3}.child-session>[id$="-children"]{order:4}
`;

/** `'sha256-…'` of `text`, as a CSP source. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Options of {@link pageHead}. */
export interface PageHeadOptions {
  /** The document title (hostile: escaped). */
  title: string;
  /** The one inline script the page may carry (`spine serve`'s live follow), if any. */
  script?: string;
  /** Where that script may connect (`'self'` for the server); none when absent. */
  connect?: string;
}

/** The start of a page, up to and including `<main>`. */
export function pageHead(options: PageHeadOptions): string {
  const scriptSrc = options.script === undefined ? "'none'" : cspHash(options.script);
  const csp = [
    "default-src 'none'",
    `style-src ${cspHash(PAGE_CSS)}`,
    `script-src ${scriptSrc}`,
    `connect-src ${options.connect ?? "'none'"}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<style>${PAGE_CSS}</style>
</head><body><main>
`;
}

/** The end of a page: the script (if any) and the closing tags. */
export function pageFoot(script?: string): string {
  return `</main>${script === undefined ? '' : `<script>${script}</script>`}</body></html>\n`;
}
