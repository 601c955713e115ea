// Stands in for `import.meta.url` in the CommonJS bundle of the CLI (scripts/bundle-cli.mjs): the bundle's own file.
export const importMetaUrl = require('node:url').pathToFileURL(__filename).href;
