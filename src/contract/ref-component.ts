/** The printable characters git never takes in a ref name (`/` separates components: a component holds none). */
const FORBIDDEN_PRINTABLE = '~^:?*[\\/';

/**
 * Whether git never takes `character` in a ref name (git's refs.c, `refname_disposition`): a control character,
 * space, or one of `~ ^ : ? * [ \ /`.
 */
const isForbidden = (character: string): boolean => {
  const code = character.charCodeAt(0);
  return code <= 0x20 || code === 0x7f || FORBIDDEN_PRINTABLE.includes(character);
};

/** How a character is named in a refusal: as itself when printable, else by its code point (`U+0001`). */
const shown = (character: string): string =>
  /[\u0021-\u007e]/.test(character)
    ? `"${character}"`
    : `U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `component` cannot be one component of a git branch name (`ralph/<batch>/<component>`), by the rules of
 * `git check-ref-format`, or null when git takes it. No git runs: the rules are git's own, checked here. A component
 * that ends one name must not end in `.` either, so that rule holds for every component.
 */
export function refComponentProblem(component: string): string | null {
  if (component === '') return 'it is empty';
  const forbidden = [...component].find(isForbidden);
  if (forbidden !== undefined) return `it contains ${shown(forbidden)}, which git refuses in a branch name`;
  if (component.includes('..')) return 'it contains "..", which git refuses in a branch name';
  if (component.includes('@{')) return 'it contains "@{", which git refuses in a branch name';
  if (component.startsWith('.')) return 'it starts with ".", which git refuses in a branch name';
  if (component.endsWith('.lock')) return 'it ends with ".lock", which git refuses in a branch name';
  if (component.endsWith('.')) return 'it ends with ".", which git refuses in a branch name';
  return null;
}
