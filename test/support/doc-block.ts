import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The text of a page of the project (README.md, or a page of docs/), read from the checkout. */
export function projectPage(page: string): Promise<string> {
  return readFile(fileURLToPath(new URL(`../../${page}`, import.meta.url)), 'utf8');
}

/** Every fenced block of `language` in `text`, in order, without its fences. */
export function fencedBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (block) => block[1] as string,
  );
}

/** The first fenced block of `language` after `marker` in `page` (README.md, or a page of docs/). */
export async function docBlock(page: string, marker: string, language: string): Promise<string> {
  const text = await projectPage(page);
  const from = text.indexOf(marker);
  if (from < 0) throw new Error(`${page} has no "${marker}"`);
  const block = fencedBlocks(text.slice(from), language)[0];
  if (block === undefined) throw new Error(`${page} has no ${language} block after "${marker}"`);
  return block;
}
