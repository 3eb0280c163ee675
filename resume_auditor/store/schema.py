"""The result file's schema, as an ordered list of migrations.

`PRAGMA user_version` holds the number of migrations applied. A file written by a
newer app (a higher version than we know) is refused rather than damaged.
`migrate` applies them (one part of the result file, docs/result-file.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from resume_auditor.store.errors import ResultFileError

# Fills pair.pair_type and pair.gap of unequal pairs from their variants' kinds (the
# store runs it after adding pairs too, so the two can never disagree).
PAIR_TYPE_SQL = """
    UPDATE pair SET pair_type = (
        SELECT CASE
            WHEN 'more' IN (va.kind, vb.kind) AND 'less' IN (va.kind, vb.kind) THEN 'more_less'
            WHEN 'more' IN (va.kind, vb.kind) THEN 'more_base'
            WHEN 'less' IN (va.kind, vb.kind) THEN 'base_less'
            ELSE '' END
        FROM variant va, variant vb WHERE va.id = pair.variant_a AND vb.id = pair.variant_b)
    WHERE kind = 'unequal' AND pair_type = '';
    UPDATE pair SET gap = CASE pair_type WHEN 'more_less' THEN 2 * k ELSE k END
    WHERE kind = 'unequal' AND gap = 0;
"""

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
    # 3: requests for every design, not only D1 pairs. A request shows one or more
    # variants in a given order under a preset of a given kind (docs/runner.md);
    # its response keeps the parsed result of that kind, where it came from (the
    # API, the response cache, a batch) and what it cost. Provider batches are
    # remembered so a run resumes them after a restart; answers a re-ask replaced
    # are kept. The D1 rows move over unchanged (ukey 'pair:<id>:<ord>').
    """
    CREATE TABLE case_set (
        id INTEGER PRIMARY KEY,
        design TEXT NOT NULL,
        kind TEXT NOT NULL,
        cluster INTEGER,
        variants_json TEXT NOT NULL DEFAULT '[]',
        meta_json TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE batch (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id),
        provider TEXT NOT NULL,
        remote_id TEXT,
        state TEXT NOT NULL DEFAULT 'preparing'
            CHECK (state IN ('preparing', 'submitted', 'ended', 'collected', 'failed')),
        remote_status TEXT NOT NULL DEFAULT '',
        requests INTEGER NOT NULL DEFAULT 0,
        message TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        submitted_at TEXT,
        ended_at TEXT
    );
    CREATE TABLE request_v3 (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id),
        ukey TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'pairwise_abstain',
        preset TEXT NOT NULL DEFAULT '',
        pair_id INTEGER REFERENCES pair(id),
        set_id INTEGER REFERENCES case_set(id),
        ord TEXT NOT NULL DEFAULT '',
        variants_json TEXT NOT NULL DEFAULT '[]',
        context_json TEXT NOT NULL DEFAULT '{}',
        cell TEXT NOT NULL DEFAULT '',
        rep INTEGER NOT NULL DEFAULT 0,
        body BLOB NOT NULL,
        body_sha256 TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'sent', 'done', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        error_kind TEXT,
        error TEXT,
        sent_at TEXT,
        done_at TEXT,
        batch_id INTEGER REFERENCES batch(id),
        UNIQUE (run_id, ukey, rep)
    );
    INSERT INTO request_v3 (id, run_id, ukey, kind, preset, pair_id, ord, variants_json, rep,
        body, body_sha256, status, attempts, error_kind, error, sent_at, done_at)
    SELECT r.id, r.run_id, 'pair:' || r.pair_id || ':' || r.ord, 'pairwise_abstain',
        run.prompt_id, r.pair_id, r.ord,
        CASE r.ord WHEN 'ab' THEN json_array(p.variant_a, p.variant_b)
            ELSE json_array(p.variant_b, p.variant_a) END,
        r.rep, r.body, r.body_sha256, r.status, r.attempts, r.error_kind, r.error,
        r.sent_at, r.done_at
    FROM request r JOIN pair p ON p.id = r.pair_id JOIN run ON run.id = r.run_id;
    CREATE TABLE response_v3 (
        request_id INTEGER PRIMARY KEY REFERENCES request_v3(id),
        raw BLOB NOT NULL,
        text TEXT NOT NULL,
        label TEXT NOT NULL CHECK (label != ''),
        justification TEXT NOT NULL DEFAULT '',
        parsed_json TEXT NOT NULL DEFAULT '{}',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        source TEXT NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'cache', 'batch')),
        notes_json TEXT NOT NULL DEFAULT '[]',
        unsupported_json TEXT NOT NULL DEFAULT '[]',
        model_version TEXT NOT NULL DEFAULT '',
        latency_s REAL NOT NULL DEFAULT 0,
        received_at TEXT NOT NULL
    );
    INSERT INTO response_v3 (request_id, raw, text, label, justification, input_tokens,
        output_tokens, cached_tokens, reasoning_tokens, model_version, latency_s, received_at)
    SELECT request_id, raw, text, label, justification, input_tokens, output_tokens,
        cached_tokens, reasoning_tokens, model_version, latency_s, received_at
    FROM response;
    DROP TABLE response;
    DROP TABLE request;
    ALTER TABLE request_v3 RENAME TO request;
    ALTER TABLE response_v3 RENAME TO response;
    CREATE INDEX request_status ON request(run_id, status);
    CREATE INDEX request_pair ON request(pair_id);
    CREATE INDEX request_batch ON request(batch_id);
    CREATE INDEX response_received ON response(received_at);
    UPDATE response SET cost_usd = 0 WHERE request_id IN (SELECT request.id FROM request
        JOIN run ON run.id = request.run_id WHERE run.provider IN ('local', 'openai-compatible'));
    CREATE TABLE response_history (
        id INTEGER PRIMARY KEY,
        request_id INTEGER NOT NULL REFERENCES request(id),
        raw BLOB NOT NULL,
        text TEXT NOT NULL,
        label TEXT NOT NULL,
        parsed_json TEXT NOT NULL DEFAULT '{}',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        reason TEXT NOT NULL,
        received_at TEXT NOT NULL
    );
    """,
    # 4: qualification texts (domain/qualtext.py): the versions of a source resume whose
    # qualifications are known (base, c+, c-, reworded), as identity templates with their
    # slots; generated ones keep the checks they passed or failed, the review status and
    # where they came from (generator model, preset, request ids). A run's `purpose`
    # tells the generator model's runs ('generation') from the audit's ('audit').
    # docs/generator.md.
    """
    CREATE TABLE qual_text (
        id INTEGER PRIMARY KEY,
        resume_id INTEGER NOT NULL REFERENCES resume(id),
        kind TEXT NOT NULL,
        k INTEGER NOT NULL DEFAULT 0,
        text TEXT NOT NULL,
        slots_json TEXT NOT NULL DEFAULT '[]',
        changes_json TEXT NOT NULL DEFAULT '[]',
        removed_json TEXT NOT NULL DEFAULT '[]',
        origin TEXT NOT NULL DEFAULT 'original',
        generator TEXT NOT NULL DEFAULT '',
        verified INTEGER NOT NULL DEFAULT 1,
        checks_json TEXT NOT NULL DEFAULT '[]',
        attempts INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'accepted', 'rejected')),
        provenance_json TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
    );
    CREATE INDEX qual_text_resume ON qual_text(resume_id, kind);
    ALTER TABLE run ADD COLUMN purpose TEXT NOT NULL DEFAULT 'audit';
    """,
    # 5: what a D1 pair is and how far apart its candidates truly are. `pair_type` is
    # more_base (c+, c), base_less (c, c-) or more_less (c+, c-); `gap` the number of
    # qualifications that differ: k, or 2k for (c+, c-), which were labelled k before.
    # Existing pairs get both from their variants' kinds. Variants record what the
    # D1 breakdowns read: the qualification type changed, where the change sits
    # (summary, body, both) and the generator model ('' when not known).
    """
    ALTER TABLE pair ADD COLUMN pair_type TEXT NOT NULL DEFAULT '';
    ALTER TABLE pair ADD COLUMN gap INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE variant ADD COLUMN qual_type TEXT NOT NULL DEFAULT '';
    ALTER TABLE variant ADD COLUMN change_location TEXT NOT NULL DEFAULT '';
    ALTER TABLE variant ADD COLUMN generator TEXT NOT NULL DEFAULT '';
    """
    + PAIR_TYPE_SQL,
    # 6: one shape for a case of every design. D1 pairs (`pair`) and D2-D4 sets
    # (`case_set`) become rows of one `test_case` table: design, kind, cluster,
    # ordered variants, per-position `meta`, and D1's details as columns (truth, k,
    # gap, pair_type, differs, group_a/b, signal) because the D1 statistics read
    # them. Pairs keep their ids; sets are numbered after the last pair, and the
    # requests that named a set (its id is in their ukey, and a D3 pool is its
    # requests' cluster) are rewritten to match, so queuing them again adds
    # nothing. Every request names its case in `case_id`; its responses, their
    # history and its batch stay as they are (the request ids do not change).
    # Runs with foreign keys off: the request table is rebuilt under its children.
    """
    CREATE TABLE test_case (
        id INTEGER PRIMARY KEY,
        design TEXT NOT NULL,
        kind TEXT NOT NULL,
        cluster INTEGER,
        variants_json TEXT NOT NULL DEFAULT '[]',
        meta_json TEXT NOT NULL DEFAULT '{}',
        truth TEXT CHECK (truth IS NULL OR truth IN ('a', 'b', 'equal')),
        k INTEGER NOT NULL DEFAULT 0,
        gap INTEGER NOT NULL DEFAULT 0,
        pair_type TEXT NOT NULL DEFAULT '',
        differs TEXT NOT NULL DEFAULT '',
        group_a TEXT,
        group_b TEXT,
        signal TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX test_case_design ON test_case(design);
    INSERT INTO test_case (id, design, kind, cluster, variants_json, truth, k, gap,
        pair_type, differs, group_a, group_b, signal)
    SELECT id, design, kind, cluster, json_array(variant_a, variant_b), truth, k, gap,
        pair_type, differs, group_a, group_b, signal FROM pair ORDER BY id;
    CREATE TEMP TABLE set_renumber AS
    SELECT id AS old, id + (SELECT coalesce(max(id), 0) FROM pair) AS new, design
    FROM case_set;
    INSERT INTO test_case (id, design, kind, cluster, variants_json, meta_json)
    SELECT n.new, s.design, s.kind, s.cluster, s.variants_json, s.meta_json
    FROM case_set s JOIN temp.set_renumber n ON n.old = s.id ORDER BY s.id;
    CREATE TABLE request_v6 (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES run(id),
        ukey TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'pairwise_abstain',
        preset TEXT NOT NULL DEFAULT '',
        case_id INTEGER REFERENCES test_case(id),
        ord TEXT NOT NULL DEFAULT '',
        variants_json TEXT NOT NULL DEFAULT '[]',
        context_json TEXT NOT NULL DEFAULT '{}',
        cell TEXT NOT NULL DEFAULT '',
        rep INTEGER NOT NULL DEFAULT 0,
        body BLOB NOT NULL,
        body_sha256 TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'sent', 'done', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        error_kind TEXT,
        error TEXT,
        sent_at TEXT,
        done_at TEXT,
        batch_id INTEGER REFERENCES batch(id),
        UNIQUE (run_id, ukey, rep)
    );
    INSERT INTO request_v6 (id, run_id, ukey, kind, preset, case_id, ord, variants_json,
        context_json, cell, rep, body, body_sha256, status, attempts, error_kind, error,
        sent_at, done_at, batch_id)
    SELECT r.id, r.run_id,
        CASE
            WHEN n.old IS NULL THEN r.ukey
            WHEN r.ukey LIKE 'd3:pool:' || n.old || ':%'
                THEN 'd3:pool:' || n.new || substr(r.ukey, length('d3:pool:' || n.old) + 1)
            WHEN r.ukey LIKE 'd4:batch:' || n.old || ':%'
                THEN 'd4:batch:' || n.new || substr(r.ukey, length('d4:batch:' || n.old) + 1)
            ELSE r.ukey END,
        r.kind, r.preset, coalesce(r.pair_id, n.new), r.ord, r.variants_json,
        CASE
            WHEN n.design = 'D3' AND json_extract(r.context_json, '$.cluster') = n.old
                THEN json_set(r.context_json, '$.cluster', n.new)
            ELSE r.context_json END,
        r.cell, r.rep, r.body, r.body_sha256, r.status, r.attempts, r.error_kind, r.error,
        r.sent_at, r.done_at, r.batch_id
    FROM request r LEFT JOIN temp.set_renumber n ON n.old = r.set_id ORDER BY r.id;
    DROP TABLE request;
    ALTER TABLE request_v6 RENAME TO request;
    CREATE INDEX request_status ON request(run_id, status);
    CREATE INDEX request_case ON request(case_id);
    CREATE INDEX request_batch ON request(batch_id);
    DROP TABLE temp.set_renumber;
    DROP TABLE pair;
    DROP TABLE case_set;
    """,
    # 7: how a D1 unequal pair was built (`construction`): summary_block (a
    # qualifications block in the summary, variants/summary_block.py), lexical (lines
    # deleted) or generator (a generator model's body edits), 'a+b' when its two
    # changed texts were made differently. Older pairs get it from their variants: a
    # changed variant with a generator is 'generator', one without is 'lexical' (the
    # only construction without a model before this one).
    """
    ALTER TABLE test_case ADD COLUMN construction TEXT NOT NULL DEFAULT '';
    UPDATE test_case SET construction = (
        SELECT group_concat(how, '+') FROM (
            SELECT DISTINCT CASE WHEN v.generator != '' THEN 'generator' ELSE 'lexical' END
                AS how
            FROM json_each(test_case.variants_json) j JOIN variant v ON v.id = j.value
            WHERE v.kind IN ('more', 'less') ORDER BY how
        )
    )
    WHERE design = 'D1' AND kind = 'unequal';
    UPDATE test_case SET construction = '' WHERE construction IS NULL;
    """,
]

# Migrations that rebuild a table other tables refer to run with foreign keys off
# (SQLite's own recipe); the keys are checked before they commit.
REBUILDS = frozenset({6})

SCHEMA_VERSION = len(MIGRATIONS)


def check_version(db: sqlite3.Connection, path: Path, *, create: bool, readonly: bool) -> int:
    """The file's schema version, refusing what is not an audit of this app's or an
    older one (a newer app's file, another database, an empty read-only file)."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version == 0:
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables and not create:
            raise ResultFileError(f"{path} is an SQLite file, but not a result file.")
        if tables:
            raise ResultFileError(f"{path} already holds another database; not touching it.")
    if version > SCHEMA_VERSION:
        raise ResultFileError(
            f"{path} was written by a newer Resume Auditor (schema {version}; "
            f"this app knows {SCHEMA_VERSION}). Update the app to open it."
        )
    if readonly and version < SCHEMA_VERSION:
        raise ResultFileError(f"{path} holds no audit yet.")
    return version


def migrate(db: sqlite3.Connection, path: Path, *, create: bool) -> int:
    """Bring the file up to this app's schema, one migration per transaction (a failure
    leaves it at the last version reached); returns the version it had."""
    version = check_version(db, path, create=create, readonly=False)
    for number in range(version, SCHEMA_VERSION):
        rebuild = number + 1 in REBUILDS
        if rebuild:  # a no-op inside a transaction, so before it starts
            db.execute("PRAGMA foreign_keys=OFF")
        # executescript commits first; the script carries its own transaction.
        try:
            db.executescript(f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1};")
            # what the rebuild wrote: requests naming their cases (a problem the
            # file already had elsewhere is not this migration's to refuse)
            broken = db.execute("PRAGMA foreign_key_check(request)").fetchall() if rebuild else []
            if broken:
                raise ResultFileError(
                    f"{path} could not be updated to this app's format: "
                    f"{len(broken)} row(s) would lose what they refer to. The file is "
                    "unchanged; please report this."
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            if rebuild:
                db.execute("PRAGMA foreign_keys=ON")
    return version
