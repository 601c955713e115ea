import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks: a link or heading inside one is an example, not a link. */
function outsideFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), each space a `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of outsideFences(readFileSync(file, 'utf8')).matchAll(
    /^#{1,6}[ \t]+(.+?)[ \t#]*$/gm,
  )) {
    const base = slug(heading as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The targets of a Markdown file's links and images, leaving out code (fenced blocks and inline spans). */
function linkTargets(text: string): string[] {
  const prose = outsideFences(text).replace(/(`+)[\s\S]*?\1/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    ([, target]) => target as string,
  );
}

/** The file a relative link of `page` names (`page` itself for a bare `#anchor`), or null for a URL. */
function linkedFile(page: string, target: string): { linked: string; anchor: string | undefined } | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:: not a file of the repository
  const [path = '', anchor] = target.split('#');
  const file = join(root, page);
  return { linked: path === '' ? file : join(dirname(file), decodeURIComponent(path)), anchor };
}

/** What is wrong with each relative link of `page`: a path that names nothing, or an anchor no heading has. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readFileSync(join(root, page), 'utf8'))) {
    const link = linkedFile(page, target);
    if (link === null) continue;
    const { linked, anchor } = link;
    if (!existsSync(linked)) broken.push(`${target}: no such file (${relative(root, linked)})`);
    else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))
      broken.push(`${target}: no heading of ${relative(root, linked)} has the anchor #${anchor}`);
  }
  return broken;
}

describe('the README and the pages of docs/ link only to what exists', () => {
  it.each(pages)(
    'every relative link and image of %s names an existing file, and every #anchor a heading',
    (page) => {
      expect(brokenLinks(page)).toEqual([]);
    },
  );

  it('the package ships what they link to, so the links resolve in an installed package too', () => {
    const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const unshipped = pages.flatMap((page) =>
      linkTargets(readFileSync(join(root, page), 'utf8')).flatMap((target) => {
        const link = linkedFile(page, target);
        if (link === null) return [];
        const path = relative(root, link.linked);
        return files.some((entry) => path === entry || path.startsWith(`${entry}/`))
          ? []
          : [`${page}: ${target}`];
      }),
    );
    expect(unshipped).toEqual([]);
  });

  it('the README links to every page of docs/', () => {
    const linked = new Set(
      linkTargets(readFileSync(join(root, 'README.md'), 'utf8')).map((t) => t.split('#')[0]),
    );
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it("anchors follow GitHub's rule: lower case, punctuation and code marks dropped, spaces as hyphens", () => {
    expect(slug('Guard rails: `--round-timeout`, `--max-time`')).toBe(
      'guard-rails---round-timeout---max-time',
    );
    expect(slug('Fleets: durable loops on Postgres (`ralph worker`, `ralph submit`)')).toBe(
      'fleets-durable-loops-on-postgres-ralph-worker-ralph-submit',
    );
    expect(slug('The agents tier: the real Claude Code and Codex')).toBe(
      'the-agents-tier-the-real-claude-code-and-codex',
    );
  });
});
