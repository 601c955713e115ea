/**
 * The machine's SVG as an element to inline in HTML: from `<svg` to `</svg>`, without the XML prolog, the doctype
 * (whose DTD address is a URL the page must not carry) or comments. Anything else that is not an SVG document gives
 * an empty string, and the page says the diagram is missing rather than showing it broken.
 */
export function inlineSvg(svgText: string): string {
  const start = svgText.search(/<svg[\s>]/);
  const end = svgText.lastIndexOf('</svg>');
  if (start < 0 || end < start) return '';
  return svgText
    .slice(start, end + '</svg>'.length)
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<script[\s\S]*?<\/script>/gi, '');
}
