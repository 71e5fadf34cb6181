import type { Dialect } from '../db.js';

/**
 * One numbered schema change. Versions are global and only grow; a released migration is never edited
 * (a fix is a new migration). `up` returns the statements for a dialect; most SQL is the same for both.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(dialect: Dialect): readonly string[];
}
