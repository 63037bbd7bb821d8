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
  {
    version: 2,
    name: 'tracking plan, dimension tables, import jobs',
    sql: `
      CREATE TABLE plan_events (
        app_key     TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        id          TEXT NOT NULL,
        name        TEXT,
        remark      TEXT,
        type        TEXT NOT NULL DEFAULT 'event' CHECK (type IN ('event', 'virtual')),
        content     TEXT,
        plan        INTEGER NOT NULL DEFAULT 0,
        data_status INTEGER NOT NULL DEFAULT 0,
        preset      INTEGER NOT NULL DEFAULT 0,
        enable      INTEGER NOT NULL DEFAULT 1,
        platform    TEXT,
        created_by  INTEGER REFERENCES accounts(id),
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        PRIMARY KEY (app_key, id)
      );

      CREATE TABLE plan_event_properties (
        app_key     TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        id          TEXT NOT NULL,
        name        TEXT,
        remark      TEXT,
        data_type   TEXT NOT NULL,
        plan        INTEGER NOT NULL DEFAULT 0,
        data_status INTEGER NOT NULL DEFAULT 0,
        preset      INTEGER NOT NULL DEFAULT 0,
        enable      INTEGER NOT NULL DEFAULT 1,
        global      INTEGER NOT NULL DEFAULT 0,
        dict        INTEGER NOT NULL DEFAULT 0,
        masking     INTEGER NOT NULL DEFAULT 0,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        PRIMARY KEY (app_key, id)
      );

      CREATE TABLE plan_event_property_links (
        app_key     TEXT NOT NULL,
        event_id    TEXT NOT NULL,
        property_id TEXT NOT NULL,
        plan        INTEGER NOT NULL DEFAULT 0,
        data_status INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (app_key, event_id, property_id),
        FOREIGN KEY (app_key, event_id) REFERENCES plan_events(app_key, id) ON DELETE CASCADE,
        FOREIGN KEY (app_key, property_id) REFERENCES plan_event_properties(app_key, id) ON DELETE CASCADE
      );

      CREATE TABLE plan_user_properties (
        app_key     TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        id          TEXT NOT NULL,
        name        TEXT,
        remark      TEXT,
        data_type   TEXT NOT NULL,
        plan        INTEGER NOT NULL DEFAULT 0,
        data_status INTEGER NOT NULL DEFAULT 0,
        preset      INTEGER NOT NULL DEFAULT 0,
        enable      INTEGER NOT NULL DEFAULT 1,
        visible     INTEGER NOT NULL DEFAULT 1,
        dict        INTEGER NOT NULL DEFAULT 0,
        masking     INTEGER NOT NULL DEFAULT 0,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        PRIMARY KEY (app_key, id)
      );

      CREATE TABLE dimension_tables (
        app_key     TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        name        TEXT NOT NULL,
        show_name   TEXT,
        remark      TEXT,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        PRIMARY KEY (app_key, name)
      );

      CREATE TABLE dimension_fields (
        app_key    TEXT NOT NULL,
        table_name TEXT NOT NULL,
        id         TEXT NOT NULL,
        data_type  TEXT NOT NULL,
        name       TEXT,
        remark     TEXT,
        enable     INTEGER NOT NULL DEFAULT 1,
        relation   INTEGER NOT NULL DEFAULT 0,
        position   INTEGER NOT NULL,
        PRIMARY KEY (app_key, table_name, id),
        FOREIGN KEY (app_key, table_name) REFERENCES dimension_tables(app_key, name) ON DELETE CASCADE
      );

      CREATE TABLE import_jobs (
        id             TEXT PRIMARY KEY,
        app_key        TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
        kind           TEXT NOT NULL,
        format         TEXT NOT NULL,
        source         TEXT NOT NULL,
        options        TEXT NOT NULL,
        rows_read      INTEGER NOT NULL DEFAULT 0,
        rows_written   INTEGER NOT NULL DEFAULT 0,
        rows_rejected  INTEGER NOT NULL DEFAULT 0,
        percent        REAL NOT NULL DEFAULT 0,
        rejected       TEXT NOT NULL DEFAULT '[]',
        error          TEXT,
        created_by     INTEGER REFERENCES accounts(id),
        create_time    INTEGER NOT NULL,
        start_time     INTEGER,
        end_time       INTEGER
      );
      CREATE INDEX import_jobs_by_project ON import_jobs (app_key, create_time);
    `,
  },
  {
    version: 3,
    name: 'data version per project (analysis cache), ad-tracking campaigns',
    sql: `
      ALTER TABLE projects ADD COLUMN data_version INTEGER NOT NULL DEFAULT 0;

      CREATE TABLE campaigns (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key       TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        campaign_id   INTEGER NOT NULL,
        short_code    TEXT NOT NULL UNIQUE,
        page_url      TEXT NOT NULL,
        utm_campaign  TEXT NOT NULL,
        utm_medium    TEXT NOT NULL,
        utm_source    TEXT NOT NULL,
        utm_content   TEXT,
        utm_term      TEXT,
        utm_type      TEXT,
        remarks       TEXT,
        status        INTEGER NOT NULL DEFAULT 1,
        created_by    INTEGER REFERENCES accounts(id),
        create_name   TEXT,
        create_time   INTEGER NOT NULL,
        update_time   INTEGER NOT NULL,
        UNIQUE (app_key, campaign_id)
      );
    `,
  },
  {
    version: 4,
    name: 'cohorts and tags',
    sql: `
      CREATE TABLE cohorts (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key         TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        code            TEXT NOT NULL UNIQUE,
        name            TEXT NOT NULL,
        dynamic         INTEGER NOT NULL CHECK (dynamic IN (0, 1)),
        source          TEXT NOT NULL CHECK (source IN ('rule', 'file')),
        content         TEXT,
        file_property   TEXT,
        status          TEXT NOT NULL CHECK (status IN ('calculating', 'success', 'failed')),
        fail_reason     TEXT,
        run             INTEGER NOT NULL DEFAULT 0,
        user_number     INTEGER,
        calculated_time INTEGER,
        attempt_time    INTEGER,
        created_by      INTEGER REFERENCES accounts(id),
        created_user    TEXT NOT NULL,
        create_time     INTEGER NOT NULL,
        update_time     INTEGER NOT NULL,
        UNIQUE (app_key, name)
      );

      CREATE TABLE cohort_file_values (
        cohort_id INTEGER NOT NULL REFERENCES cohorts(id) ON DELETE CASCADE,
        value     TEXT NOT NULL,
        PRIMARY KEY (cohort_id, value)
      );

      CREATE TABLE tags (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key      TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        code         TEXT NOT NULL UNIQUE,
        name         TEXT NOT NULL,
        source       TEXT NOT NULL CHECK (source IN ('rule', 'file')),
        rules        TEXT,
        status       TEXT NOT NULL CHECK (status IN ('calculating', 'success', 'failed')),
        fail_reason  TEXT,
        run          INTEGER NOT NULL DEFAULT 0,
        created_by   INTEGER REFERENCES accounts(id),
        created_user TEXT NOT NULL,
        create_time  INTEGER NOT NULL,
        update_time  INTEGER NOT NULL,
        UNIQUE (app_key, name)
      );

      CREATE TABLE tag_versions (
        tag_id          INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
        version         INTEGER NOT NULL,
        user_number     INTEGER NOT NULL,
        calculated_time INTEGER NOT NULL,
        PRIMARY KEY (tag_id, version)
      );

      CREATE TABLE tag_file_values (
        tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
        xwho   TEXT NOT NULL,
        value  TEXT NOT NULL,
        PRIMARY KEY (tag_id, xwho)
      );
    `,
  },
  {
    version: 5,
    name: 'web origins allowed to upload to the collector, per project',
    sql: `
      -- a JSON array of origins ("https://shop.example", "null" for file pages); empty = any origin
      ALTER TABLE projects ADD COLUMN collector_origins TEXT NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 6,
    name: 'ingest problems: what the collector refused or left out, per project',
    sql: `
      CREATE TABLE ingest_problem_counts (
        app_key   TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        kind      TEXT NOT NULL CHECK (kind IN ('refused', 'dropped', 'upload')),
        property  TEXT NOT NULL,
        reason    TEXT NOT NULL,
        count     INTEGER NOT NULL,
        records   INTEGER NOT NULL,
        last_time INTEGER NOT NULL,
        PRIMARY KEY (app_key, kind, property, reason)
      );

      CREATE TABLE ingest_problems (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key     TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        time        INTEGER NOT NULL,
        kind        TEXT NOT NULL CHECK (kind IN ('refused', 'dropped')),
        property    TEXT NOT NULL,
        value       TEXT,
        reason      TEXT NOT NULL,
        lib         TEXT,
        lib_version TEXT,
        record      TEXT NOT NULL
      );
      CREATE INDEX ingest_problems_by_project ON ingest_problems (app_key, id);
    `,
  },
  {
    version: 7,
    name: 'saved reports and dashboards',
    sql: `
      CREATE TABLE reports (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key      TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('events', 'funnels', 'retentions', 'distributions', 'userAttributes')),
        request      TEXT NOT NULL,
        options      TEXT NOT NULL,
        created_by   INTEGER REFERENCES accounts(id),
        created_user TEXT NOT NULL,
        updated_by   INTEGER REFERENCES accounts(id),
        updated_user TEXT NOT NULL,
        create_time  INTEGER NOT NULL,
        update_time  INTEGER NOT NULL,
        UNIQUE (app_key, name)
      );

      CREATE TABLE dashboards (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        app_key      TEXT NOT NULL REFERENCES projects(app_key) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        tiles        TEXT NOT NULL,
        from_date    TEXT,
        to_date      TEXT,
        crowd        TEXT,
        created_by   INTEGER REFERENCES accounts(id),
        created_user TEXT NOT NULL,
        updated_by   INTEGER REFERENCES accounts(id),
        updated_user TEXT NOT NULL,
        create_time  INTEGER NOT NULL,
        update_time  INTEGER NOT NULL,
        UNIQUE (app_key, name)
      );
    `,
  },
  {
    version: 8,
    name: 'ingest problems: records naming no known project, server-wide',
    sql: `
      -- no project to log them under: one row per appid named (cut to 100 characters; '' for records
      -- naming none), at most UNKNOWN_APPIDS_KEPT of them; later appids add to the one 'others' row
      CREATE TABLE ingest_unknown_appids (
        kind        TEXT NOT NULL CHECK (kind IN ('appid', 'others')),
        appid       TEXT NOT NULL,
        uploads     INTEGER NOT NULL,
        records     INTEGER NOT NULL,
        last_time   INTEGER NOT NULL,
        lib         TEXT,
        lib_version TEXT,
        record      TEXT NOT NULL,
        PRIMARY KEY (kind, appid)
      );
    `,
  },
  {
    version: 9,
    name: 'ingest problems: uploads refused with 503 because the collector was busy',
    sql: `
      -- per project ('' when the upload named no project that could be read, or an unknown one),
      -- reason ('decoders': every decode thread busy and the waiting bytes full, before decoding;
      -- 'writer': the project busy writing longer than the collector waits) and SDK ($lib, '' when
      -- not said; at most BUSY_LIBS_KEPT named per project and reason, the others add to '')
      CREATE TABLE ingest_busy_refusals (
        app_key     TEXT NOT NULL,
        reason      TEXT NOT NULL CHECK (reason IN ('decoders', 'writer')),
        lib         TEXT NOT NULL,
        lib_version TEXT,
        appid       TEXT,
        uploads     INTEGER NOT NULL,
        records     INTEGER NOT NULL,
        bytes       INTEGER NOT NULL,
        last_time   INTEGER NOT NULL,
        PRIMARY KEY (app_key, reason, lib)
      );
    `,
  },
  {
    version: 10,
    name: 'projects whose warehouse is a ClickHouse server',
    sql: `
      -- one row per project NOT on the embedded DuckDB. The password is kept in clear like the
      -- projects' tokens (the metadata file is the user's alone, 0600) because the app must send
      -- it to the server; it is never logged or answered. created_database: 1 when the database
      -- did not exist when the project was created (the app made it), 0 when it was already there
      -- (a team's shared store: the app never drops it).
      CREATE TABLE project_warehouses (
        app_key          TEXT PRIMARY KEY REFERENCES projects(app_key) ON DELETE CASCADE,
        engine           TEXT NOT NULL CHECK (engine IN ('clickhouse')),
        url              TEXT NOT NULL,
        database         TEXT NOT NULL,
        user             TEXT,
        password         TEXT,
        created_database INTEGER NOT NULL CHECK (created_database IN (0, 1))
      );
    `,
  },
]
