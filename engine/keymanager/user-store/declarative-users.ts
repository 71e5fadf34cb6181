import type { Logger } from '../../log/logger.js';
import { DeclarativeDirectory } from '../../registry/declarative-directory.js';
import type { ApimStore } from '../../store/index.js';
import { hashSecret, verifySecret } from '../secret-hash.js';
import { readUsersFile, type UsersFile } from './users-file.js';

/**
 * The declarative door to users and roles: `<home>/repository/deployment/server/users/*.toml`, hot-deployed
 * like applications. What a file declares is written to the store with the file as its source; what a file
 * no longer declares (or a removed file) is deleted. The admin API does not change file-owned users.
 */
export class DeclarativeUsers {
  private readonly dir: DeclarativeDirectory<UsersFile>;
  private applying: Promise<void> = Promise.resolve();

  constructor(private readonly o: { dir: string; store: ApimStore; log: Logger; onChange: () => void; rescanInterval: number }) {
    this.dir = new DeclarativeDirectory<UsersFile>({
      dir: o.dir, kind: 'users file', extension: '.toml', parse: readUsersFile, identity: (u) => u.file, log: o.log,
      rescanMs: o.rescanInterval,
      onChange: (files) => { this.applying = this.applying.then(() => this.apply(files)).catch((err) => o.log.error({ err: (err as Error).message }, 'users files could not be applied')); },
    });
  }

  async start(): Promise<void> {
    this.dir.start();
    await this.applying;
  }

  /** Resolves when the changes seen so far are in the store. */
  settled(): Promise<void> {
    return this.applying;
  }

  stop(): void {
    this.dir.stop();
  }

  private isFileSource(source: string): boolean {
    return source.startsWith(this.o.dir);
  }

  private async apply(files: readonly UsersFile[]): Promise<void> {
    const { store, log } = this.o;
    const roles = new Map<string, string>();
    const users = new Map<string, string>();
    for (const f of files) {
      for (const r of f.roles) {
        if (roles.has(r.name)) { log.error({ file: f.file, role: r.name }, `role ${r.name} is already declared in ${roles.get(r.name)}; this declaration is ignored`); continue; }
        const existing = await store.roles.get(r.name);
        if (existing && !this.isFileSource(existing.source)) { log.error({ file: f.file, role: r.name }, `role ${r.name} was created through the admin API; the file's declaration is ignored`); continue; }
        roles.set(r.name, f.file);
        await store.roles.put(r.name, r.scopes, f.file);
      }
      for (const u of f.users) {
        if (users.has(u.username)) { log.error({ file: f.file, user: u.username }, `user ${u.username} is already declared in ${users.get(u.username)}; this declaration is ignored`); continue; }
        const existing = await store.users.get(u.username);
        if (existing && !this.isFileSource(existing.source)) { log.error({ file: f.file, user: u.username }, `user ${u.username} exists already (${existing.source}); the file's declaration is ignored`); continue; }
        users.set(u.username, f.file);
        // A clear password is hashed again only when it changed (scrypt at every rescan would cost a lot).
        const hash = u.passwordHash ?? (existing && await verifySecret(u.password!, existing.passwordHash) ? existing.passwordHash : await hashSecret(u.password!));
        await store.users.put(u.username, hash, u.roles, Date.now(), { claims: u.claims, source: f.file });
      }
    }
    for (const r of await store.roles.list()) if (this.isFileSource(r.source) && !roles.has(r.name)) await store.roles.delete(r.name);
    for (const u of await store.users.list()) {
      if (this.isFileSource(u.source) && !users.has(u.username)) {
        await store.users.delete(u.username);
        log.info({ user: u.username }, 'user removed (no users file declares it any more)');
      }
    }
    this.o.onChange();
  }
}
