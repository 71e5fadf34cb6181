import fs from 'node:fs';
import { declarativeFiles, type FileCheck } from '../registry/check.js';
import { parseApplicationFile } from './application-file.js';

/**
 * `sluice check-config` for <home>/repository/deployment/server/applications: each file through the parser
 * hot deployment uses, and the conflicts the store would refuse across files (one application name and one
 * client id in one file only).
 */
export function checkApplicationFiles(dir: string, defaultOwner: string): FileCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  const files = declarativeFiles(dir);
  const names = new Map<string, string>();
  const clientIds = new Map<string, string>();
  for (const file of files) {
    try {
      const app = parseApplicationFile(fs.readFileSync(file, 'utf8'), file, defaultOwner);
      warnings.push(...app.warnings);
      const holder = names.get(app.name);
      if (holder !== undefined) { errors.push(`${file}: application "${app.name}" is already defined in ${holder}`); continue; }
      names.set(app.name, file);
      for (const k of app.keys) {
        const other = clientIds.get(k.clientId);
        if (other !== undefined) errors.push(`${file}: client_id "${k.clientId}" is already used in ${other}`);
        else clientIds.set(k.clientId, file);
      }
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return { errors, warnings, files: files.length };
}
