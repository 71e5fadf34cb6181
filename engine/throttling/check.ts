import { declarativeFiles, type FileCheck } from '../registry/check.js';
import { readPolicyFile } from './policy-file.js';

/** `sluice check-config`: every policy file's problems (file, line, key path), one message per bad file. */
export function checkPolicyFiles(dir: string): FileCheck {
  const errors: string[] = [];
  const files = declarativeFiles(dir);
  for (const file of files) {
    try {
      readPolicyFile(file);
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return { errors, warnings: [], files: files.length };
}
