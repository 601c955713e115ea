/** The DBOS SDK's module. */
export type DbosModule = typeof import('@dbos-inc/dbos-sdk');

let dbos: Promise<DbosModule> | undefined;

/**
 * Loads the DBOS SDK on first use. Only the fleet's commands and functions pay for it (some 40 MB of modules and
 * ~150 ms): `ralph run` and every library user that never starts a fleet never load it (the CLI bundle keeps it
 * external).
 */
export function loadDbos(): Promise<DbosModule> {
  dbos ??= import('@dbos-inc/dbos-sdk').then(
    // The SDK is CommonJS: Node's ESM import may put its exports under `default` only.
    (module) => (module.DBOS === undefined ? (module as unknown as { default: DbosModule }).default : module),
  );
  return dbos;
}
