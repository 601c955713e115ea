/**
 * `ralph-machine/fleet`: Ralph loops as durable DBOS workflows in Postgres, run by workers on any number of
 * machines. Kept out of the package root, like `ralph-machine/ai-sdk`, so that an application bundling the library
 * never pulls in the DBOS SDK, which loads only when a fleet is used.
 */
export * from './fleet/index.js';
