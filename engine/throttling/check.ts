import fs from 'node:fs';
import path from 'node:path';
import { readPolicyFile } from './policy-file.js';

/** `sluice check-config`: every policy file's problems (file, line, key path), one message per bad file. */
export function checkPolicyFiles(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.toml') && !n.startsWith('.')).sort();
  } catch {
    return [];
  }
  const problems: string[] = [];
  for (const n of names) {
    try {
      readPolicyFile(path.join(dir, n));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}
