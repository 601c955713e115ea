import type { Command } from 'commander';

/** `--database-url`: the fleet's Postgres database, as every fleet command takes it. */
export const DATABASE_URL = [
  '--database-url <url>',
  "the fleet's Postgres database, postgres://user@host:port/db (default: $RALPH_DATABASE_URL)",
] as const;

/** `--database-url-file`: the database URL read from a file, so its password stays off the command line. */
export const DATABASE_URL_FILE = [
  '--database-url-file <file>',
  'read the database URL from this file (its first line), so its password is not on the command line',
] as const;

/** Adds the database options to a fleet command. */
export const withDatabase = (command: Command): Command =>
  command.option(...DATABASE_URL).option(...DATABASE_URL_FILE);
