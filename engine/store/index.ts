import type { DatabaseView } from '../../conf/views/store.js';
import type { Logger } from '../log/logger.js';
import { PostgresDb, SqliteDb, StoreUnavailableError, type Db } from './db.js';
import { migrate } from './migrations/index.js';
import { UserTable } from './users.js';
import { ApplicationTable } from './applications.js';
import { TokenTable } from './tokens.js';
import { ApiTable } from './apis.js';
import { PolicyTable } from './policies.js';
import { GatewayTable } from './gateways.js';
import { EventTable } from './events.js';
import { RoleTable } from './roles.js';
import { AuthorizationCodeTable } from './authorization-codes.js';
import { ApiKeyTable } from './api-keys.js';
import { RepeatedWarnings } from '../log/repeated-warnings.js';

export * from './db.js';
export { StoreAvailability } from './availability.js';
export { MIGRATIONS, migrate, type Migration } from './migrations/index.js';
export { UserTable, type UserRecord, type UserClaims, type UserWrite } from './users.js';
export { RoleTable, type RoleRecord } from './roles.js';
export { AuthorizationCodeTable, type AuthorizationCodeRecord, type CodeRedemption } from './authorization-codes.js';
export { ApiKeyTable, NO_EXPIRY, type ApiKeyRecord, type ApiKeyState } from './api-keys.js';
export { ApplicationTable, ApplicationConflictError } from './applications.js';
export { TokenTable, type TokenRecord, type TokenState, type TokenFormat, type UserType, type RevokedToken, type RotateResult } from './tokens.js';
export { TokenWriter } from './token-writer.js';
export { ApiTable, ApiConflictError, type StoredApi } from './apis.js';
export { PolicyTable, POLICY_LEVELS, type PolicyLevel, type BlockConditionRecord } from './policies.js';
export { GatewayTable, type GatewayInfo, type GatewayRecord, type GatewayStatus, type DeploymentAck, type GatewayDeployment } from './gateways.js';
export { EventTable, type JournaledEvent } from './events.js';

/**
 * The apim_db store: one database (SQLite file or PostgreSQL), one object per table group. Other parts
 * (admin REST API: APIs, policies, block conditions) add their table group beside these and their
 * migrations to migrations/index.ts.
 */
export class ApimStore {
  readonly users: UserTable;
  readonly applications: ApplicationTable;
  readonly tokens: TokenTable;
  readonly apis: ApiTable;
  readonly policies: PolicyTable;
  readonly gateways: GatewayTable;
  readonly events: EventTable;
  readonly roles: RoleTable;
  readonly codes: AuthorizationCodeTable;
  readonly apiKeys: ApiKeyTable;

  constructor(readonly db: Db) {
    this.users = new UserTable(db);
    this.applications = new ApplicationTable(db);
    this.tokens = new TokenTable(db);
    this.apis = new ApiTable(db);
    this.policies = new PolicyTable(db);
    this.gateways = new GatewayTable(db);
    this.events = new EventTable(db);
    this.roles = new RoleTable(db);
    this.codes = new AuthorizationCodeTable(db);
    this.apiKeys = new ApiKeyTable(db);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Opens the store [database.apim_db] describes and brings its schema up to date. */
export async function openStore(view: DatabaseView, log: Logger): Promise<ApimStore> {
  let db: Db;
  if (view.kind === 'sqlite') {
    try {
      db = new SqliteDb(view.file);
    } catch (err) {
      throw new StoreUnavailableError(`the embedded store ${view.file} cannot be opened: ${(err as Error).message}`, err);
    }
  } else if (view.kind === 'postgres') {
    // Every idle connection of the pool reports the loss when the server goes: one line, with a count.
    const warnings = new RepeatedWarnings(log);
    const pgDb = new PostgresDb(view, (err) => warnings.warn('idle connection lost', { err: err.message }, 'PostgreSQL connection lost (the pool reconnects)'));
    try {
      await pgDb.check(view.validationQuery);
    } catch (err) {
      await pgDb.close().catch(() => {});
      throw err;
    }
    db = pgDb;
  } else {
    throw new StoreUnavailableError(`[database.apim_db]: ${view.reason}`);
  }
  try {
    await migrate(db, log);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  log.info({ db: db.description, dialect: db.dialect }, 'apim_db store open');
  const where = db.description;
  // A disk that is nearly full lets a write through now and then: the store flaps, the log says it once a window.
  const transitions = new RepeatedWarnings(log);
  db.availability.onChange = (problem, downMs, failures) => {
    if (problem !== null) {
      transitions.error('down', { db: where, err: problem.message },
        'the store is unavailable: requests that need it answer 503 (temporarily_unavailable) and /health/ready is DOWN until a write goes through again');
    } else {
      transitions.info('up', { db: where, downMs, failures }, 'the store is available again');
    }
  };
  return new ApimStore(db);
}
