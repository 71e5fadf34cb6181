import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './home.js';

function readVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Sluice's version (package.json), read once: logs carry it, `sluice_build_info` and `sluice --version` show it. */
export const SLUICE_VERSION = readVersion();
