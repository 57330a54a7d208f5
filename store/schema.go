package store

// migrations are applied in order, each once, inside a transaction; the
// version reached is recorded in schema_migrations. Never edit a released
// migration: append a new one.
var migrations = []string{
	// 1: repository, commits, changes, refs, issues, sync state, queue, blobs.
	`
CREATE TABLE repository (
	id                INTEGER PRIMARY KEY CHECK (id = 1),
	name              TEXT NOT NULL,
	path              TEXT NOT NULL,
	remote_url        TEXT NOT NULL DEFAULT '',
	default_branch    TEXT NOT NULL DEFAULT '',
	branch_mode       TEXT NOT NULL DEFAULT 'default',
	branches          TEXT NOT NULL DEFAULT '',
	keep_days         INTEGER NOT NULL DEFAULT 0,
	keep_commits      INTEGER NOT NULL DEFAULT 0,
	bare              INTEGER NOT NULL DEFAULT 0,
	shallow           INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL,
	last_synced_at    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE commits (
	id               INTEGER PRIMARY KEY,
	hash             TEXT NOT NULL UNIQUE,
	author_name      TEXT NOT NULL,
	author_email     TEXT NOT NULL,
	author_time      INTEGER NOT NULL,
	author_tz        INTEGER NOT NULL,
	committer_name   TEXT NOT NULL,
	committer_email  TEXT NOT NULL,
	committer_time   INTEGER NOT NULL,
	committer_tz     INTEGER NOT NULL,
	subject          TEXT NOT NULL,
	is_merge         INTEGER NOT NULL,
	shallow          INTEGER NOT NULL DEFAULT 0,
	files_changed    INTEGER NOT NULL,
	insertions       INTEGER NOT NULL,
	deletions        INTEGER NOT NULL,
	redactions       INTEGER NOT NULL DEFAULT 0,
	message_repaired INTEGER NOT NULL DEFAULT 0,
	branch           TEXT NOT NULL DEFAULT '',
	rewritten        INTEGER NOT NULL DEFAULT 0,
	indexed_at       INTEGER NOT NULL
);
CREATE INDEX commits_committer_time ON commits(committer_time);
CREATE INDEX commits_rewritten ON commits(rewritten) WHERE rewritten = 1;

CREATE TABLE commit_parents (
	commit_id   INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	parent_hash TEXT NOT NULL,
	PRIMARY KEY (commit_id, idx)
) WITHOUT ROWID;
CREATE INDEX commit_parents_parent ON commit_parents(parent_hash);

CREATE TABLE file_changes (
	commit_id  INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	path       TEXT NOT NULL,
	old_path   TEXT NOT NULL DEFAULT '',
	status     TEXT NOT NULL,
	language   TEXT NOT NULL DEFAULT '',
	binary     INTEGER NOT NULL DEFAULT 0,
	skipped    TEXT NOT NULL DEFAULT '',
	insertions INTEGER NOT NULL,
	deletions  INTEGER NOT NULL,
	old_blob   TEXT NOT NULL DEFAULT '',
	new_blob   TEXT NOT NULL DEFAULT '',
	similarity INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (commit_id, seq)
) WITHOUT ROWID;
CREATE INDEX file_changes_path ON file_changes(path);
CREATE INDEX file_changes_old_path ON file_changes(old_path) WHERE old_path != '';

CREATE TABLE hunks (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	idx       INTEGER NOT NULL,
	old_start INTEGER NOT NULL,
	old_lines INTEGER NOT NULL,
	new_start INTEGER NOT NULL,
	new_lines INTEGER NOT NULL,
	PRIMARY KEY (commit_id, seq, idx)
) WITHOUT ROWID;

CREATE TABLE issue_refs (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	key       TEXT NOT NULL,
	ord       INTEGER NOT NULL,
	kind      TEXT NOT NULL,
	action    TEXT NOT NULL,
	raw       TEXT NOT NULL,
	url       TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (commit_id, key)
) WITHOUT ROWID;
CREATE INDEX issue_refs_key ON issue_refs(key);

CREATE TABLE refs (
	name   TEXT PRIMARY KEY,
	kind   TEXT NOT NULL,
	target TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX refs_target ON refs(target);

-- pruned keeps the hashes of commits that a retention policy deleted, so
-- that a later sync does not index them again. Nothing else of them is kept.
CREATE TABLE pruned (
	hash TEXT PRIMARY KEY
) WITHOUT ROWID;

-- blobs holds full messages and diff text, compressed. Keys are
-- deterministic ("msg:<hash>", "diff:<hash>:<seq>") so writes are idempotent.
CREATE TABLE blobs (
	key   TEXT PRIMARY KEY,
	codec INTEGER NOT NULL,
	size  INTEGER NOT NULL,
	data  BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE sync_state (
	branch     TEXT PRIMARY KEY,
	last_head  TEXT NOT NULL DEFAULT '',
	updated_at INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE sync_runs (
	id          INTEGER PRIMARY KEY,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER NOT NULL DEFAULT 0,
	indexed     INTEGER NOT NULL DEFAULT 0,
	failed      INTEGER NOT NULL DEFAULT 0,
	rewritten   INTEGER NOT NULL DEFAULT 0,
	pruned      INTEGER NOT NULL DEFAULT 0,
	redactions  INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT ''
);

CREATE TABLE queue (
	commit_hash     TEXT PRIMARY KEY,
	branch          TEXT NOT NULL DEFAULT '',
	priority        INTEGER NOT NULL DEFAULT 0,
	seq             INTEGER NOT NULL,
	status          TEXT NOT NULL DEFAULT 'pending',
	attempts        INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT NOT NULL DEFAULT '',
	enqueued_at     INTEGER NOT NULL,
	next_attempt_at INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX queue_ready ON queue(status, priority DESC, seq);
`,
	// 2: the object a ref names (an annotated tag's own hash), so that
	// unchanged tags need not be peeled again on every sync.
	`ALTER TABLE refs ADD COLUMN object TEXT NOT NULL DEFAULT ''`,
	// 3: what the understand stage finds: classification, summary and
	// design notes.
	`
ALTER TABLE commits ADD COLUMN classification TEXT NOT NULL DEFAULT '';
ALTER TABLE commits ADD COLUMN labels TEXT NOT NULL DEFAULT '';
ALTER TABLE commits ADD COLUMN summary TEXT NOT NULL DEFAULT '';
CREATE INDEX commits_classification ON commits(classification);

CREATE TABLE design_notes (
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	idx       INTEGER NOT NULL,
	source    TEXT NOT NULL,
	path      TEXT NOT NULL DEFAULT '',
	line      INTEGER NOT NULL DEFAULT 0,
	marker    TEXT NOT NULL,
	text      TEXT NOT NULL,
	entities  TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (commit_id, idx)
) WITHOUT ROWID;
`,
	// 4: code entities and what each commit did to them; the graph marker
	// (a commit's graph edges are written after its metadata, and graphed is
	// set only then, so a crash in between replays them); LLM summaries.
	`
ALTER TABLE repository ADD COLUMN graph TEXT NOT NULL DEFAULT '';
ALTER TABLE commits ADD COLUMN graphed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX commits_ungraphed ON commits(id) WHERE graphed = 0;

CREATE TABLE entities (
	id        INTEGER PRIMARY KEY,
	key       TEXT NOT NULL UNIQUE,
	path      TEXT NOT NULL,
	qualified TEXT NOT NULL,
	name      TEXT NOT NULL,
	kind      TEXT NOT NULL,
	language  TEXT NOT NULL
);
CREATE INDEX entities_name ON entities(name);
CREATE INDEX entities_path ON entities(path);

CREATE TABLE entity_changes (
	commit_id  INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	entity_id  INTEGER NOT NULL REFERENCES entities(id),
	action     TEXT NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	signature  TEXT NOT NULL DEFAULT '',
	replaces   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (commit_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX entity_changes_entity ON entity_changes(entity_id);

-- couplings are the co-evolving pairs (graph node ids, a < b) and
-- verified_by the tests of files and entities; the graph mirrors both.
-- relations_state.last_commit is the highest commit id they account for;
-- stale asks for a full recomputation (after a rewrite, or at first).
CREATE TABLE couplings (
	a          TEXT NOT NULL,
	b          TEXT NOT NULL,
	shared     INTEGER NOT NULL,
	revs_a     INTEGER NOT NULL,
	revs_b     INTEGER NOT NULL,
	confidence REAL NOT NULL,
	PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX couplings_b ON couplings(b);

CREATE TABLE verified_by (
	subject    TEXT NOT NULL,
	test       TEXT NOT NULL,
	basis      TEXT NOT NULL,
	confidence REAL NOT NULL,
	PRIMARY KEY (subject, test)
) WITHOUT ROWID;
CREATE INDEX verified_by_test ON verified_by(test);

CREATE TABLE relations_state (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	last_commit INTEGER NOT NULL DEFAULT 0,
	stale       INTEGER NOT NULL DEFAULT 1
);
INSERT INTO relations_state(id) VALUES (1);

CREATE TABLE llm_summaries (
	hash    TEXT NOT NULL,
	model   TEXT NOT NULL,
	summary TEXT NOT NULL,
	PRIMARY KEY (hash, model)
) WITHOUT ROWID;
`,
}
