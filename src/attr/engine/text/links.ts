/**
 * Links in answer text: Markdown link targets `[text](uri)` and bare
 * `scheme://...` URIs. Trailing sentence punctuation is not part of a URI.
 */

const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BARE_URI = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s<>"'`)\]]+/g;

/** Markdown links need a `[`, bare URIs a `://`: without either the regexes cannot match. */
function mayHoldLink(text: string): boolean {
  return text.includes('[') || text.includes('://');
}

function trimTrailingPunctuation(uri: string): string {
  return uri.replace(/[.,;:!?]+$/, '');
}

/** Unique link URIs in order of first appearance. */
export function findLinkUris(text: string): string[] {
  if (!mayHoldLink(text)) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (uri: string) => {
    const u = trimTrailingPunctuation(uri);
    if (u && !seen.has(u)) {
      seen.add(u);
      out.push(u);
    }
  };
  for (const m of text.matchAll(MARKDOWN_LINK)) add(m[1]!);
  for (const m of text.matchAll(BARE_URI)) add(m[0]);
  return out;
}

/** Text with links removed (Markdown links keep their text), for retrieval. */
export function stripLinks(text: string): string {
  if (!mayHoldLink(text)) return text;
  return text.replace(MARKDOWN_LINK, (full) => full.slice(1, full.indexOf(']'))).replace(BARE_URI, ' ');
}
