/**
 * The JSON Schema subset strict structured-output modes accept (OpenAI's strict mode, the strictest the presets
 * use): objects close with `additionalProperties: false` and require every property; only these keywords appear.
 * Validation keywords like minLength, minItems, pattern or if/then are refused by those modes, which is why the
 * report's and the verdict's rules live in their descriptions and in the zod schemas that check them on receipt.
 */
const STRICT_KEYWORDS = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
]);

/** What takes a schema outside the strict subset, each as `path: problem`; empty when it is inside. */
export function strictSchemaProblems(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return [`${path}: not a schema object`];
  const node = schema as Record<string, unknown>;
  const problems = Object.keys(node)
    .filter((key) => !STRICT_KEYWORDS.has(key))
    .map((key) => `${path}: keyword ${key} is outside the strict subset`);
  if (node.type === 'object') {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
    const required = new Set((node.required ?? []) as string[]);
    for (const [name, inner] of Object.entries(properties)) {
      if (!required.has(name)) problems.push(`${path}: property ${name} is not required`);
      problems.push(...strictSchemaProblems(inner, `${path}/properties/${name}`));
    }
  }
  if (node.items !== undefined) problems.push(...strictSchemaProblems(node.items, `${path}/items`));
  if (Array.isArray(node.anyOf))
    for (const [i, inner] of node.anyOf.entries())
      problems.push(...strictSchemaProblems(inner, `${path}/anyOf/${i}`));
  return problems;
}
