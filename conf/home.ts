import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where things live under a Sluice home (the reference system's layout, DESIGN.md "Home layout"). */
export class HomeLayout {
  readonly root: string;
  constructor(root: string) { this.root = path.resolve(root); }
  get confFile(): string { return path.join(this.root, 'repository/conf/deployment.toml'); }
  get serverDeployment(): string { return path.join(this.root, 'repository/deployment/server'); }
  get sequencesDir(): string { return path.join(this.serverDeployment, 'synapse-configs/default/sequences'); }
  get apisDir(): string { return path.join(this.serverDeployment, 'apis'); }
  get applicationsDir(): string { return path.join(this.serverDeployment, 'applications'); }
  get usersDir(): string { return path.join(this.serverDeployment, 'users'); }
  get policiesDir(): string { return path.join(this.serverDeployment, 'policies'); }
  get databaseDir(): string { return path.join(this.root, 'repository/database'); }
  get securityDir(): string { return path.join(this.root, 'repository/resources/security'); }
  /** The super admin's password when deployment.toml sets none: generated on first start, mode 0600. */
  get generatedAdminPasswordFile(): string { return path.join(this.securityDir, 'super_admin.password'); }
  get logsDir(): string { return path.join(this.root, 'repository/logs'); }
  /** The running node's process id, for `sluice stop` and `sluice reload` (written by `sluice start`). */
  get pidFile(): string { return path.join(this.root, 'repository/sluice.pid'); }
  resolve(rel: string): string { return path.isAbsolute(rel) ? rel : path.join(this.root, rel); }
}

/** The project root (where package.json is): conf/home.ts runs from the sources or compiles to dist/conf/home.js. */
export function projectRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '../..') : path.resolve(here, '..');
}

/** The project's own default home (home/ beside package.json). */
export function defaultHomeDir(): string {
  return path.join(projectRoot(), 'home');
}

/** `--home DIR`, else `$SLUICE_HOME`, else ./home when it exists, else the project's home/. */
export function chooseHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (flag) return path.resolve(cwd, flag);
  if (env['SLUICE_HOME']) return path.resolve(cwd, env['SLUICE_HOME']);
  return path.resolve(cwd, 'home');
}
