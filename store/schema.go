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
	// 5: the lookup fast path (retrieve/lookup.go). commits.severity is seed
	// 000's canonical severity, 0 unknown, 1 low, 2 medium, 3 high, 4
	// critical, from the classification, security labels (confidence ≥
	// 0.2), CVE references and redactions (retrieve.SeverityOf documents the
	// mapping; commit_severity is its SQL form). lookup_keys holds a row per
	// commit and key: "=" and a path the commit changed (new or old), "/" and
	// a directory above one, "!" and an issue key it references. Its order
	// is the lookup's (live, severity, event time), so a lookup reads the
	// few newest rows of the highest severity per key, however busy the
	// path. Triggers keep both current in the writer's transaction;
	// path_positions numbers characters for splitting paths, since triggers
	// cannot use recursive CTEs.
	`
ALTER TABLE commits ADD COLUMN severity INTEGER NOT NULL DEFAULT 0;

CREATE TABLE lookup_keys (
	key       TEXT NOT NULL,
	live      INTEGER NOT NULL,
	severity  INTEGER NOT NULL,
	time      INTEGER NOT NULL,
	commit_id INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	PRIMARY KEY (key, live, severity, time, commit_id)
) WITHOUT ROWID;
CREATE INDEX lookup_keys_commit ON lookup_keys(commit_id, key);

CREATE TABLE path_positions (n INTEGER PRIMARY KEY);
INSERT INTO path_positions WITH RECURSIVE p(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM p WHERE n < 4096) SELECT n FROM p;

CREATE VIEW commit_severity AS SELECT c.id AS id, CASE
	WHEN (c.classification = 'security' OR CASE WHEN c.labels LIKE '%"security"%' AND json_valid(c.labels) THEN EXISTS
			(SELECT 1 FROM json_each(c.labels) j WHERE j.value ->> 'type' = 'security' AND j.value ->> 'confidence' >= 0.2) END)
		AND EXISTS (SELECT 1 FROM issue_refs r WHERE r.commit_id = c.id AND r.kind = 'cve') THEN 4
	WHEN c.classification = 'security' OR c.redactions > 0 THEN 3
	WHEN c.classification IN ('bugfix', 'revert', 'performance') OR CASE WHEN c.labels LIKE '%"security"%' AND json_valid(c.labels)
		THEN EXISTS (SELECT 1 FROM json_each(c.labels) j WHERE j.value ->> 'type' = 'security' AND j.value ->> 'confidence' >= 0.2) END THEN 2
	WHEN c.classification != '' THEN 1
	ELSE 0 END AS severity
FROM commits c;

UPDATE commits SET severity = (SELECT v.severity FROM commit_severity v WHERE v.id = commits.id);
INSERT OR IGNORE INTO lookup_keys SELECT '=' || f.path, c.rewritten = 0, c.severity, c.committer_time, c.id
	FROM file_changes f JOIN commits c ON c.id = f.commit_id;
INSERT OR IGNORE INTO lookup_keys SELECT '=' || f.old_path, c.rewritten = 0, c.severity, c.committer_time, c.id
	FROM file_changes f JOIN commits c ON c.id = f.commit_id WHERE f.old_path != '';
INSERT OR IGNORE INTO lookup_keys SELECT '/' || substr(f.path, 1, p.n - 1), c.rewritten = 0, c.severity, c.committer_time, c.id
	FROM file_changes f JOIN commits c ON c.id = f.commit_id JOIN path_positions p ON p.n < length(f.path)
	WHERE substr(f.path, p.n, 1) = '/';
INSERT OR IGNORE INTO lookup_keys SELECT '/' || substr(f.old_path, 1, p.n - 1), c.rewritten = 0, c.severity, c.committer_time, c.id
	FROM file_changes f JOIN commits c ON c.id = f.commit_id JOIN path_positions p ON p.n < length(f.old_path)
	WHERE substr(f.old_path, p.n, 1) = '/';
INSERT OR IGNORE INTO lookup_keys SELECT '!' || r.key, c.rewritten = 0, c.severity, c.committer_time, c.id
	FROM issue_refs r JOIN commits c ON c.id = r.commit_id;

CREATE TRIGGER commits_severity AFTER INSERT ON commits BEGIN
	UPDATE commits SET severity = (SELECT v.severity FROM commit_severity v WHERE v.id = new.id) WHERE id = new.id;
END;

CREATE TRIGGER commits_reclassified AFTER UPDATE OF classification, labels, redactions ON commits BEGIN
	UPDATE commits SET severity = (SELECT v.severity FROM commit_severity v WHERE v.id = new.id) WHERE id = new.id;
	UPDATE lookup_keys SET severity = (SELECT severity FROM commits WHERE id = new.id) WHERE commit_id = new.id;
END;

CREATE TRIGGER commits_rewritten AFTER UPDATE OF rewritten ON commits WHEN old.rewritten != new.rewritten BEGIN
	UPDATE lookup_keys SET live = (new.rewritten = 0) WHERE commit_id = new.id;
END;

CREATE TRIGGER file_changes_lookup AFTER INSERT ON file_changes BEGIN
	INSERT OR IGNORE INTO lookup_keys SELECT '=' || new.path, c.rewritten = 0, c.severity, c.committer_time, c.id
		FROM commits c WHERE c.id = new.commit_id;
	INSERT OR IGNORE INTO lookup_keys SELECT '=' || new.old_path, c.rewritten = 0, c.severity, c.committer_time, c.id
		FROM commits c WHERE c.id = new.commit_id AND new.old_path != '';
	INSERT OR IGNORE INTO lookup_keys SELECT '/' || substr(new.path, 1, p.n - 1), c.rewritten = 0, c.severity, c.committer_time, c.id
		FROM commits c JOIN path_positions p ON p.n < length(new.path)
		WHERE c.id = new.commit_id AND substr(new.path, p.n, 1) = '/';
	INSERT OR IGNORE INTO lookup_keys SELECT '/' || substr(new.old_path, 1, p.n - 1), c.rewritten = 0, c.severity, c.committer_time, c.id
		FROM commits c JOIN path_positions p ON p.n < length(new.old_path)
		WHERE c.id = new.commit_id AND substr(new.old_path, p.n, 1) = '/';
END;

CREATE TRIGGER issue_refs_lookup AFTER INSERT ON issue_refs BEGIN
	UPDATE commits SET severity = (SELECT v.severity FROM commit_severity v WHERE v.id = new.commit_id)
		WHERE id = new.commit_id AND new.kind = 'cve';
	UPDATE lookup_keys SET severity = (SELECT severity FROM commits WHERE id = new.commit_id)
		WHERE commit_id = new.commit_id AND new.kind = 'cve';
	INSERT OR IGNORE INTO lookup_keys SELECT '!' || new.key, c.rewritten = 0, c.severity, c.committer_time, c.id
		FROM commits c WHERE c.id = new.commit_id;
END;
`,
	// 6: the keyword index (retrieve/keyword.go): one FTS5 row per commit,
	// rowid = commits.id, over text that SearchText has expanded with the
	// parts of identifiers (parseConfigFile also as parse config file), so
	// BM25 finds a function by a word of its name. '_' is a token character,
	// so snake_case identifiers stay whole beside their parts; the porter
	// stemmer makes "completions" find "completion".
	`
CREATE VIRTUAL TABLE search USING fts5(subject, body, summary, notes, paths, entities,
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'");
CREATE TRIGGER commits_search_delete AFTER DELETE ON commits BEGIN
	DELETE FROM search WHERE rowid = old.id;
END;
`,
	// 7: the path keys of lookup_keys are written by store.Writer (computed
	// on the workers, inserted a batch at a time) instead of a trigger per
	// file change, which cost 40% of an extraction-only sync of git/git.
	// The commit's severity and time still come from its row, as before.
	`DROP TRIGGER file_changes_lookup`,
	// 8: each record's paths fingerprint is a lookup key ("#paths:…",
	// written by store.Writer). SQL cannot hash, so the records stored
	// before wait here for FingerprintBackfill; while any wait, lookups by
	// fingerprint hash the window's records instead.
	`
CREATE TABLE fingerprint_backfill (commit_id INTEGER PRIMARY KEY);
INSERT INTO fingerprint_backfill SELECT id FROM commits;
`,
	// 9: code relationships (model.Relation: CALLS, IMPORTS, IMPLEMENTS,
	// EXTENDS, and the REQUIRES rows behind Go's IMPLEMENTS). code_nodes
	// names their ends by graph node id; code_relations holds what each commit
	// added (added = 1) or removed (added = 0). The relationships of the
	// code at a version are those whose latest row, in commit order, adds
	// them: the key's order, so reading a node's relationships, or all of
	// them, is one ordered scan.
	`
CREATE TABLE code_nodes (
	id   INTEGER PRIMARY KEY,
	node TEXT NOT NULL UNIQUE
);
CREATE TABLE code_relations (
	from_id    INTEGER NOT NULL REFERENCES code_nodes(id),
	kind       TEXT NOT NULL,
	to_id      INTEGER NOT NULL REFERENCES code_nodes(id),
	commit_id  INTEGER NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
	added      INTEGER NOT NULL,
	confidence REAL NOT NULL,
	PRIMARY KEY (from_id, kind, to_id, commit_id)
) WITHOUT ROWID;
CREATE INDEX code_relations_to ON code_relations(to_id, kind);
CREATE INDEX code_relations_commit ON code_relations(commit_id);
`,
	// 10: the path git log --follow goes on with from a file a commit
	// created (model.FileChange.Follow). Rows stored before it hold "", and
	// history falls back on a rename's old path for them.
	`ALTER TABLE file_changes ADD COLUMN follow TEXT NOT NULL DEFAULT ''`,
	// 11: a smaller store. The keyword index keeps no copy of its text
	// (contentless; contentless_delete lets a commit's row be deleted and
	// replaced): nothing reads it back, the messages are in blobs, and the
	// copy was a ninth of git/git's store. blobs becomes a rowid table: as
	// WITHOUT ROWID, rows of a few KiB left 41% of its pages unused.
	`
DROP TRIGGER commits_search_delete;
CREATE VIRTUAL TABLE search_new USING fts5(subject, body, summary, notes, paths, entities,
	content = '', contentless_delete = 1,
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'");
INSERT INTO search_new(rowid, subject, body, summary, notes, paths, entities)
	SELECT rowid, subject, body, summary, notes, paths, entities FROM search ORDER BY rowid;
DROP TABLE search;
ALTER TABLE search_new RENAME TO search;
CREATE TRIGGER commits_search_delete AFTER DELETE ON commits BEGIN
	DELETE FROM search WHERE rowid = old.id;
END;
CREATE TABLE blobs_new (
	key   TEXT NOT NULL UNIQUE,
	codec INTEGER NOT NULL,
	size  INTEGER NOT NULL,
	data  BLOB NOT NULL
);
INSERT INTO blobs_new(key, codec, size, data) SELECT key, codec, size, data FROM blobs ORDER BY key;
DROP TABLE blobs;
ALTER TABLE blobs_new RENAME TO blobs;
`,
	// 12: a blob's row id is its commit's id << 32 plus its slot (0 the
	// message, 1 the raw message, 2 + seq a diff; store/blobkeys.go), in
	// place of a key text that repeated the commit's hash, and the index
	// over it. A blob whose commit is not stored (none is: a commit's blobs
	// are deleted with it) could not be read through its commit, and is not
	// kept. blob_keys shows the blobs by their keys (a scan: the readers go
	// through the commit).
	`
CREATE TABLE blobs_new (
	id    INTEGER PRIMARY KEY,
	codec INTEGER NOT NULL,
	size  INTEGER NOT NULL,
	data  BLOB NOT NULL
);
INSERT INTO blobs_new(id, codec, size, data)
	SELECT (c.id << 32) + k.slot, b.codec, b.size, b.data
	FROM (SELECT rowid AS r,
			CASE kind WHEN 'msg' THEN rest WHEN 'rawmsg' THEN rest ELSE substr(rest, 1, instr(rest, ':') - 1) END AS hash,
			CASE kind WHEN 'msg' THEN 0 WHEN 'rawmsg' THEN 1 ELSE 2 + CAST(substr(rest, instr(rest, ':') + 1) AS INTEGER) END AS slot
		FROM (SELECT rowid, substr(key, 1, instr(key, ':') - 1) AS kind, substr(key, instr(key, ':') + 1) AS rest FROM blobs)
		WHERE kind IN ('msg', 'rawmsg') OR (kind = 'diff' AND instr(rest, ':') > 0)) k
	JOIN blobs b ON b.rowid = k.r
	JOIN commits c ON c.hash = k.hash
	ORDER BY 1;
DROP TABLE blobs;
ALTER TABLE blobs_new RENAME TO blobs;
CREATE VIEW blob_keys AS SELECT CASE b.id & 4294967295 WHEN 0 THEN 'msg:' || c.hash WHEN 1 THEN 'rawmsg:' || c.hash
		ELSE 'diff:' || c.hash || ':' || ((b.id & 4294967295) - 2) END AS key, b.codec, b.size, b.data
	FROM blobs b JOIN commits c ON c.id = b.id >> 32;
`,
	// 13: the database's page count after its last compaction (see
	// Store.CompactIfGrown); 0 before the first.
	`
CREATE TABLE compaction (
	id    INTEGER PRIMARY KEY CHECK (id = 1),
	pages INTEGER NOT NULL
);
INSERT INTO compaction VALUES (1, 0);
`,
	// 14: file_changes.old_blob and new_blob hold the object ids' bytes
	// (x'' for none), not their hex: 13.3 of git/git's 22.6 MB of file
	// changes were hex digits. Readers select lower(hex(old_blob)).
	`UPDATE file_changes SET old_blob = unhex(old_blob), new_blob = unhex(new_blob)`,
	// 15: commit_parents.parent_hash holds the parent's hash as bytes, not
	// hex: 4.1 of git/git's 5.2 MB of parents, and as much again in the
	// index over them, were hex digits. Readers select
	// lower(hex(parent_hash)) and look a hash up with unhex.
	`UPDATE commit_parents SET parent_hash = unhex(parent_hash)`,
	// 16: hunks holds one row per file change, its hunks' headers packed
	// as varints (spans, store/spans.go), not one row per hunk: 10.2 MB of
	// git/git's rows became about 5.
	spansMigration(),
	// 17: the documentation at the tracked branch's head, a paragraph a
	// row (store/docs.go), and in how many paragraphs each word occurs:
	// a question's best paragraphs lend their distinctive words to the
	// keyword search (retrieve/docwords.go). The index is contentless; each
	// file's paragraphs are kept once, compressed, beside its blob id, so
	// that a sync rereads only the files that changed (git/git's 28,000
	// paragraphs: 4 MB instead of 9.5).
	`
CREATE VIRTUAL TABLE docs USING fts5(text, content = '', contentless_delete = 1,
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'");
CREATE TABLE doc_files (
	path  TEXT PRIMARY KEY,
	blob  BLOB NOT NULL,
	first INTEGER NOT NULL,
	n     INTEGER NOT NULL,
	codec INTEGER NOT NULL,
	size  INTEGER NOT NULL,
	text  BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX doc_files_first ON doc_files(first);
CREATE TABLE doc_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE docs_state (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	head       TEXT NOT NULL,
	paragraphs INTEGER NOT NULL
);
INSERT INTO docs_state VALUES (1, '', 0);
`,
	// 18: a commit whose subject is a placeholder ("upstream commit", on a
	// thousand of openssh-portable's) is indexed under its headline, the
	// body's first paragraph (model.Headline). The commits stored before
	// wait here for Reindex, which writes their summaries, keyword rows and
	// vector documents again. The condition is model.Placeholder's, in SQL.
	`
CREATE TABLE reindex (commit_id INTEGER PRIMARY KEY);
INSERT INTO reindex SELECT id FROM commits WHERE lower(trim(subject, ' ' || char(9) || char(13))) = 'upstream commit';
`,
}
