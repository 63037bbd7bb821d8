/**
 * Numbered migrations of the metadata database. Each runs once, in order, inside a transaction;
 * `PRAGMA user_version` records the last one applied. Append only: never edit a released step.
 */
export interface Migration {
  version: number
  name: string
  sql: string
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'platform: settings, projects, accounts, roles, members, operation log',
    sql: `
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      CREATE TABLE projects (
        app_key       TEXT PRIMARY KEY,
        cname         TEXT NOT NULL,
        token         TEXT NOT NULL UNIQUE,
        status        INTEGER NOT NULL DEFAULT 1,
        stream        INTEGER NOT NULL DEFAULT 0,
        finish        INTEGER NOT NULL DEFAULT 0,
        time_zone     TEXT NOT NULL,
        version       TEXT NOT NULL,
        partition_num INTEGER NOT NULL DEFAULT 1,
        sdk_back      TEXT,
        logo          TEXT,
        create_time   INTEGER NOT NULL,
        created_by    INTEGER REFERENCES accounts(id)
      );

      CREATE TABLE accounts (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
        user_name     TEXT UNIQUE,
        name          TEXT,
        phone         TEXT UNIQUE,
        department    TEXT,
        password_hash TEXT,
        enabled       INTEGER NOT NULL DEFAULT 1,
        platform_role TEXT NOT NULL DEFAULT 'platform member',
        create_time   INTEGER NOT NULL
      );

      CREATE TABLE roles (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
      );
      INSERT INTO roles (id, name) VALUES
        (2, 'admin'), (3, 'product'), (4, 'data analyst'), (5, 'engineer'), (6, 'regular member');

      CREATE TABLE project_members (
        app_key    TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        role_id    INTEGER NOT NULL REFERENCES roles(id),
        PRIMARY KEY (app_key, account_id)
      );

      CREATE TABLE operation_log (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        at          INTEGER NOT NULL,
        operator_id INTEGER REFERENCES accounts(id),
        app_key     TEXT,
        action      TEXT NOT NULL,
        target      TEXT
      );
    `,
  },
]
