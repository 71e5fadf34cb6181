import fs from 'node:fs';
import path from 'node:path';
import { readApiFile } from './api-file.js';
import type { ApiDefinition } from './types.js';

export interface FileCheck {
  /** Files that would not deploy, one line each (`file:line: key: why`). */
  readonly errors: string[];
  /** Files that deploy, with something the operator should know. */
  readonly warnings: string[];
  /** How many files were read. */
  readonly files: number;
}

/** The *.toml files of a declarative folder, as hot deployment lists them (sorted, no dot files, no folders). */
export function declarativeFiles(dir: string, extension = '.toml'): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(extension) && !n.startsWith('.')).sort();
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter((f) => {
    try { return fs.statSync(f).isFile(); } catch { return false; }
  });
}

/**
 * `sluice check-config` for <home>/repository/deployment/server/apis: each file through the parser hot
 * deployment uses (readApiFile), and the check DeclarativeDirectory makes across files (one name:version per
 * file). Two APIs on the same context and version deploy, but only one of them receives the calls: a warning.
 */
export function checkApiFiles(dir: string): FileCheck {
  return checkApiFileList(declarativeFiles(dir));
}

/** The same for a list of files (in deployment order): `sluice import openapi` checks its file among the others. */
export function checkApiFileList(files: readonly string[]): FileCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  const byId = new Map<string, string>();
  const byPrefix = new Map<string, ApiDefinition>();
  for (const file of files) {
    let api: ApiDefinition;
    try {
      api = readApiFile(file);
    } catch (err) {
      errors.push((err as Error).message);
      continue;
    }
    const holder = byId.get(api.id);
    if (holder !== undefined) { errors.push(`${file}: API ${api.id} is already defined in ${holder}`); continue; }
    byId.set(api.id, file);
    const prefix = `${api.context}/${api.version}`;
    const other = byPrefix.get(prefix);
    if (other) warnings.push(`${file}: API ${api.id} serves ${prefix}, as ${other.id} (${other.source}) does: only one of them receives the calls`);
    else byPrefix.set(prefix, api);
  }
  return { errors, warnings, files: files.length };
}
