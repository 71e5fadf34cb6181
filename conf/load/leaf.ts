import type { KeySpec } from '../catalog/types.js';

/** One value as written: `path` is concrete (`apim.gateway.environment[0].name`), `specPath` is catalog-shaped. */
export interface Leaf {
  readonly path: string;
  readonly specPath: string;
  readonly value: unknown;
  spec?: KeySpec;
}

/** A value that could not be read or resolved; its problem has been reported already. */
export const FAILED = Symbol('failed');

/** How the loading steps report a problem on a key path (the loader keeps the list, one entry per problem). */
export type Report = (severity: 'error' | 'warning', path: string, message: string, expected?: string, suggestion?: string) => void;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
