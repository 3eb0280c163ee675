"""The result file's schema, as an ordered list of migrations.

`PRAGMA user_version` holds the number of migrations applied. A file written by a
newer app (a higher version than we know) is refused rather than damaged.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE study (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        source_path TEXT,
        toml TEXT NOT NULL,
        config_json TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE job (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        source_name TEXT,
        source_bytes BLOB
    );
    CREATE TABLE qualification (
        id INTEGER PRIMARY KEY,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('required', 'preferred')),
        qtype TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE TABLE resume (
        id INTEGER PRIMARY KEY,
        filename TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        bytes BLOB,
        text TEXT NOT NULL,
        pages INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('ok', 'warning', 'error')),
        message TEXT NOT NULL DEFAULT '',
        template_json TEXT
    );
    CREATE TABLE variant (
        id INTEGER PRIMARY KEY,
        resume_id INTEGER NOT NULL REFERENCES resume(id),
        kind TEXT NOT NULL,
        grp TEXT,
        name TEXT,
        k INTEGER NOT NULL DEFAULT 0,
        changes_json TEXT NOT NULL DEFAULT '[]',
        removed_json TEXT NOT NULL DEFAULT '[]',
        text TEXT NOT NULL
    );
    CREATE TABLE pair (
        id INTEGER PRIMARY KEY,
        design TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('equal', 'unequal')),
        variant_a INTEGER NOT NULL REFERENCES variant(id),
        variant_b INTEGER NOT NULL REFERENCES variant(id),
        truth TEXT NOT NULL CHECK (truth IN ('a', 'b', 'equal')),
        cluster INTEGER NOT NULL,
        k INTEGER NOT NULL DEFAULT 0,
        differs TEXT NOT NULL DEFAULT '',
        group_a TEXT,
        group_b TEXT,
        signal TEXT NOT NULL DEFAULT 'name'
    );
    CREATE TABLE run (
        id INTEGER PRIMARY KEY,
        provider TEXT NOT NULL,
        base_url TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_id TEXT NOT NULL,
        params_json TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE request (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id),
        pair_id INTEGER NOT NULL REFERENCES pair(id),
        ord TEXT NOT NULL CHECK (ord IN ('ab', 'ba')),
        rep INTEGER NOT NULL DEFAULT 0,
        body BLOB NOT NULL,
        body_sha256 TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'sent', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        error_kind TEXT,
        error TEXT,
        sent_at TEXT,
        done_at TEXT,
        UNIQUE (run_id, pair_id, ord, rep)
    );
    CREATE INDEX request_status ON request(run_id, status);
    CREATE TABLE response (
        request_id INTEGER PRIMARY KEY REFERENCES request(id),
        raw BLOB NOT NULL,
        text TEXT NOT NULL,
        label TEXT NOT NULL CHECK (label IN ('first', 'second', 'abstain', 'invalid')),
        justification TEXT NOT NULL DEFAULT '',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        model_version TEXT NOT NULL DEFAULT '',
        latency_s REAL NOT NULL DEFAULT 0,
        received_at TEXT NOT NULL
    );
    """,
    # 2: what the user must see about a resume before a run (hidden text, instructions
    # to an AI, demographic mentions), as found when it was added
    """
    ALTER TABLE resume ADD COLUMN findings_json TEXT NOT NULL DEFAULT '[]';
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)
