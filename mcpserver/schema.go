package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gitmemory/gitmemory/api"
)

// toolDef is a tool's name, words and schema adjustments.
type toolDef struct {
	name, title, description string
	// adjust sets on the schema inferred from the input type what struct
	// tags cannot say.
	adjust func(props map[string]*jsonschema.Schema)
}

// inputSchema infers In's schema and applies adjust. The input types are
// fixed at compile time, so an inference error is a programming error.
func inputSchema[In any](adjust func(map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(In), err))
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	return s
}

// budgetProp bounds token_budget.
//
// No property has a schema "default", though several have one: the SDK
// (v1.8.0, with jsonschema-go v0.4.3) applies defaults to the arguments
// before validating them, and panics on a call whose arguments are JSON
// null when a default is declared. The descriptions say the defaults
// instead, and the handlers apply them.
func budgetProp(props map[string]*jsonschema.Schema) {
	p := props["token_budget"]
	p.Minimum, p.Maximum = ptr(1.0), ptr(float64(api.MaxTokens))
}

func ptr[T any](v T) *T { return &v }

// Inputs. A field without omitempty is required; the jsonschema tag is
// the property's description, which is what the client's model reads.

// QueryInput asks a question about a repository's history.
type QueryInput struct {
	Query       string `json:"query" jsonschema:"the question, in plain words: why was X done, how does Y work, when did Z change"`
	Repository  string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"the most tokens (cl100k) the answer may take; default 4000"`
	MaxResults  int    `json:"max_results,omitempty" jsonschema:"the most ranked commits to return, 1 to 20; default 5"`
	Full        bool   `json:"full,omitempty" jsonschema:"add each key commit's whole message, a diff snippet and the git show command that verifies it"`
	SeedOrder   bool   `json:"seed_order,omitempty" jsonschema:"return commits that state a reason (Hard) first, at most 5, then at most 3 others (Soft); default: by relevance"`
	// Seed 003's QueryOptions.
	IncludeDiffs  *bool      `json:"include_diffs,omitempty" jsonschema:"include the important diffs in the pack; default true"`
	IncludeTests  *bool      `json:"include_tests,omitempty" jsonschema:"include the related tests in the pack; default true"`
	RecencyWeight *float64   `json:"recency_weight,omitempty" jsonschema:"0 to 1: how much to prefer recent commits"`
	DateRange     *DateRange `json:"date_range,omitempty" jsonschema:"only commits committed in this range"`
}

// DateRange is seed 003's date_range: dates as YYYY-MM-DD or RFC 3339,
// either side optional; to includes its whole day.
type DateRange struct {
	From string `json:"from,omitempty" jsonschema:"first date, YYYY-MM-DD or RFC 3339"`
	To   string `json:"to,omitempty" jsonschema:"last date, YYYY-MM-DD (inclusive) or RFC 3339"`
}

// EntityInput asks for a function's, class's or file's history.
type EntityInput struct {
	EntityName  string `json:"entity_name" jsonschema:"a function, method or type name (Apply, Options.Apply, or path#qualified), or a repository-relative file path"`
	EntityType  string `json:"entity_type,omitempty" jsonschema:"what the name is; without it the best match of any kind"`
	Repository  string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"the most tokens (cl100k) the answer may take; default 4000"`
}

// Entity types the tool accepts.
const (
	TypeFunction = "function"
	TypeClass    = "class"
	TypeFile     = "file"
)

// RecentInput asks for the commits of the last days.
type RecentInput struct {
	Path        string `json:"path,omitempty" jsonschema:"only commits that changed this repository-relative file or directory"`
	Days        int    `json:"days,omitempty" jsonschema:"how many days back; default 7"`
	Repository  string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"the most tokens (cl100k) the answer may take; default 4000"`
}

// LookupInput is a candidate change to find the related recent ones for.
type LookupInput struct {
	Paths        []string `json:"paths,omitempty" jsonschema:"repository-relative paths the change touches"`
	Fingerprint  string   `json:"fingerprint,omitempty" jsonschema:"an issue or advisory key (#12, PROJ-7, CVE-2024-1234) or a paths fingerprint (paths: and 16 hex digits)"`
	Fingerprints []string `json:"fingerprints,omitempty" jsonschema:"more fingerprints, like fingerprint"`
	Repository   string   `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
}

// HistoryInput asks for the commits that changed a path.
type HistoryInput struct {
	Path        string `json:"path" jsonschema:"a repository-relative file (renames are followed back) or directory"`
	Repository  string `json:"repository,omitempty" jsonschema:"a registered repository's name; may be omitted when only one is registered"`
	Limit       int    `json:"limit,omitempty" jsonschema:"at most this many commits, newest first"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"the most tokens (cl100k) the answer may take; default 4000"`
}

var queryTool = toolDef{
	name:  "gitmemory_query",
	title: "Ask about the repository's history",
	description: `Answers "why", "how" and "when" questions about a repository's history: why a design was chosen, ` +
		`how a feature came to work as it does, when and by whom something changed. Searches the indexed commits ` +
		`(keywords, meaning and the code graph) and returns a Context Pack in Markdown: a summary, the key commits ` +
		`with their change types, a timeline, the code and diffs involved, design notes from commit messages, and ` +
		`related tests, within token_budget.`,
	adjust: budgetProp,
}

var entityTool = toolDef{
	name:  "gitmemory_entity_history",
	title: "History of a function, class or file",
	description: `The history of one function, method, class or file: when it was introduced, every commit that ` +
		`changed it (with change type and summary, following renames and moves), its tests and what changes with it. ` +
		`entity_type narrows the match; "file" takes entity_name as a repository-relative path.`,
	adjust: func(props map[string]*jsonschema.Schema) {
		props["entity_type"].Enum = []any{TypeFunction, TypeClass, TypeFile}
		budgetProp(props)
	},
}

var recentTool = toolDef{
	name:  "gitmemory_recent_changes",
	title: "Recent changes",
	description: `The commits of the last days (default 7), newest first, with change type and one-line summary; ` +
		`with path, only those that changed that file or directory.`,
	adjust: func(props map[string]*jsonschema.Schema) {
		d := props["days"]
		d.Minimum, d.Maximum = ptr(1.0), ptr(float64(maxDays))
		budgetProp(props)
	},
}

var lookupTool = toolDef{
	name:  "gitmemory_lookup",
	title: "Related recent changes",
	description: `Before or while making a change: finds the recent commits (default the last 90 days) related to it, ` +
		`those that touched the same files or directories or that reference the same issue or advisory, ` +
		`most severe first (security and bug fixes rank high). Fast: reads indexes only. Give paths, fingerprints, or both.`,
	adjust: func(props map[string]*jsonschema.Schema) {
		props["paths"].MaxItems = ptr(api.MaxPaths)
		props["fingerprints"].MaxItems = ptr(api.MaxPaths)
	},
}

var historyTool = toolDef{
	name:  "gitmemory_history",
	title: "History of a file or directory",
	description: `The commits that changed a file (following its renames back, like git log --follow) or anything ` +
		`under a directory, newest first, with date, change type, summary and renames.`,
	adjust: func(props map[string]*jsonschema.Schema) {
		l := props["limit"]
		l.Minimum, l.Maximum = ptr(1.0), ptr(float64(api.MaxLimit))
		budgetProp(props)
	},
}

// maxDays is the longest recent window the service accepts.
const maxDays = 365 * 100

// Outputs: the answers as structured content, with their schemas
// published to clients. Dates are RFC 3339.

// QueryOutput is a query's ranked answer.
type QueryOutput struct {
	Repository string `json:"repository"`
	Mode       string `json:"mode" jsonschema:"how the query was answered: hybrid, vector, keyword or basic"`
	Intent     string `json:"intent"`
	Degraded   bool   `json:"degraded,omitempty" jsonschema:"a store was missing, so the mode is below hybrid"`
	// Results are the ranked commits, best first.
	Results []QueryResult `json:"results"`
	Omitted int           `json:"omitted,omitempty" jsonschema:"results left out to fit token_budget"`
	// TokenCount is the Context Pack's size (the text content).
	TokenCount int `json:"token_count" jsonschema:"the Context Pack's size in cl100k tokens"`
}

// QueryResult is one ranked commit.
type QueryResult struct {
	Commit         string   `json:"commit"`
	Score          float64  `json:"score"`
	Classification string   `json:"classification,omitempty"`
	Summary        string   `json:"summary,omitempty"`
	Why            []string `json:"why,omitempty" jsonschema:"what matched: keyword, vector, entity X, path Y, issue #N"`
	Stale          bool     `json:"stale,omitempty"`
	Tier           string   `json:"tier,omitempty" jsonschema:"hard (a stated reason and a source that still exists) or soft"`
	Confidence     string   `json:"confidence,omitempty" jsonschema:"S1 (high) to S3 (low)"`
}

// Change is one commit in a list of changes.
type Change struct {
	Commit         string `json:"commit"`
	Date           string `json:"date"`
	Author         string `json:"author,omitempty"`
	Classification string `json:"classification,omitempty"`
	Summary        string `json:"summary" jsonschema:"the commit's summary, else its subject"`
	Path           string `json:"path,omitempty"`
	Status         string `json:"status,omitempty"`
	OldPath        string `json:"old_path,omitempty" jsonschema:"the previous name, for a rename"`
}

// ChangesOutput is a list of commits, newest first: a history or the
// recent changes.
type ChangesOutput struct {
	Repository string   `json:"repository"`
	Path       string   `json:"path,omitempty"`
	Days       int      `json:"days,omitempty"`
	Commits    []Change `json:"commits"`
	Omitted    int      `json:"omitted,omitempty" jsonschema:"commits left out to fit token_budget"`
	More       bool     `json:"more,omitempty" jsonschema:"the limit was reached: older commits may exist"`
}

// Entity identifies a code entity.
type Entity struct {
	Key       string `json:"key" jsonschema:"path#qualified name"`
	Kind      string `json:"kind"`
	Qualified string `json:"qualified,omitempty"`
	Path      string `json:"path"`
	Language  string `json:"language,omitempty"`
}

// EntityEvent is one commit's change to an entity (or, for a file, to the
// file).
type EntityEvent struct {
	Commit         string `json:"commit"`
	Date           string `json:"date"`
	Classification string `json:"classification,omitempty"`
	Action         string `json:"action" jsonschema:"introduces, modifies or deletes (for a file: added, modified, renamed or deleted)"`
	Summary        string `json:"summary"`
	// Name is the entity's key or the file's path at the time, when it
	// differs from the current one (before a rename).
	Name string `json:"name,omitempty"`
}

// EntityOutput is an entity's (or a file's) history.
type EntityOutput struct {
	Repository string `json:"repository"`
	Entity     Entity `json:"entity"`
	// Note explains a match that is not what was asked for exactly.
	Note        string        `json:"note,omitempty"`
	Introduced  string        `json:"introduced,omitempty" jsonschema:"the commit that introduced it, when indexed"`
	Deleted     bool          `json:"deleted,omitempty"`
	Renames     []string      `json:"renames,omitempty"`
	Events      []EntityEvent `json:"events" jsonschema:"the commits that changed it, newest first"`
	Omitted     int           `json:"omitted,omitempty" jsonschema:"events left out to fit token_budget"`
	Tests       []string      `json:"tests,omitempty"`
	ChangesWith []string      `json:"changes_with,omitempty" jsonschema:"entities and files that tend to change in the same commits"`
	Others      []string      `json:"other_matches,omitempty" jsonschema:"other entities the name matches, as kind and key"`
}

// LookupMatch is one related record.
type LookupMatch struct {
	Severity string `json:"severity,omitempty"`
	Type     string `json:"type"`
	Date     string `json:"date"`
	Summary  string `json:"summary"`
	ID       string `json:"id"`
	Link     string `json:"link,omitempty"`
}

// LookupOutput is a lookup's answer.
type LookupOutput struct {
	Repository   string        `json:"repository"`
	Paths        []string      `json:"paths,omitempty"`
	Fingerprints []string      `json:"fingerprints,omitempty"`
	WindowDays   int           `json:"window_days"`
	Matches      []LookupMatch `json:"matches"`
	Omitted      int           `json:"omitted,omitempty" jsonschema:"matches left out to fit the token budget"`
	More         bool          `json:"more,omitempty" jsonschema:"more records match than the configured max_matches"`
}
