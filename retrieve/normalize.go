package retrieve

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Normalize turns a question into its content words, in seed 002's order:
// lower-case, strip punctuation, remove stop words (English and Russian),
// collapse white space. Identifiers and paths are extracted from the raw
// question separately (see extractRefs), since this loses their shape.
func Normalize(q string) []string {
	q = strings.ToLower(q)
	q = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			return r
		}
		if unicode.IsSpace(r) {
			return ' '
		}
		return ' ' // punctuation separates words: "fix:" and "os.Args" split
	}, q)
	var out []string
	for _, w := range strings.Fields(q) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// stopWords are words that say nothing about which commit is meant:
// English and Russian function words, and the question words of this
// domain ("commit", "change", "code", "why"), which every answer shares.
var stopWords = setOf(`a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing done down during each few for from further
had has have having he her here hers him his how i if in into is it its itself just me more most my no nor
not now of off on once only or other our out over own same she should so some such than that the their
them then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours get got ever still also may might must shall
cobra's it's don't doesn't didn't isn't wasn't won't can't
commit commits change changes changed code repo repository project did does happen happened make made
please tell show explain find look us let
и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот
от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять
уж вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без
будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один
почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после
над больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед
иногда лучше чуть том нельзя такой им более всегда конечно всю между почему коммит код`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// refs are the identifiers, paths and hashes a question names, read from
// its raw text.
type refs struct {
	shas   []string // hex words of 7 to 40 digits
	paths  []string // words with a '/' or a file extension
	idents []string // code-like words: camelCase, snake_case, a.b, name()
	// names are plain words the question may mean as a function or type
	// name: `quoted`, called (retry()), or capitalised inside a sentence
	// (Retry). Only an entity of exactly that name makes them one.
	names []string
}

var (
	shaRe   = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	wordRe  = regexp.MustCompile("[A-Za-z_][A-Za-z0-9_./:-]*[A-Za-z0-9_]|[A-Za-z_]")
	extRe   = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,5}$`)
	identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*([.:][A-Za-z_][A-Za-z0-9_]*)*$`)
)

// extractRefs finds the shas, paths and identifiers of a raw question.
func extractRefs(q string) refs {
	var r refs
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	for _, m := range shaRe.FindAllString(strings.ToLower(q), -1) {
		if strings.IndexFunc(m, func(r rune) bool { return r >= 'a' && r <= 'f' }) >= 0 || len(m) >= 12 {
			add(&r.shas, m)
		}
	}
	for _, loc := range wordRe.FindAllStringIndex(strings.ReplaceAll(q, "`", " "), -1) {
		w := strings.TrimRight(q[loc[0]:loc[1]], ".:-")
		switch {
		case strings.Contains(w, "/") || (extRe.MatchString(w) && !strings.Contains(w[:len(w)-len(extRe.FindString(w))], ".") && codeExt[strings.ToLower(extRe.FindString(w))]):
			add(&r.paths, w)
		case identRe.MatchString(w) && looksLikeCode(w):
			add(&r.idents, w)
		case plainName(q, loc[0], w):
			add(&r.names, w)
		}
	}
	return r
}

// plainName reports whether the plain word w at byte start of q reads as
// a name: quoted in backticks, followed by "(", or capitalised (not all
// capitals) where a sentence does not start.
func plainName(q string, start int, w string) bool {
	if len(w) < 3 || strings.ContainsAny(w, "./:-") {
		return false
	}
	end := start + len(w)
	if start > 0 && q[start-1] == '`' || end < len(q) && (q[end] == '`' || q[end] == '(') {
		return true
	}
	if !unicode.IsUpper(rune(w[0])) || strings.ToUpper(w) == w {
		return false
	}
	before := strings.TrimRight(q[:start], " \t\"'(")
	return before != "" && !strings.ContainsRune(".?!:;\n", rune(before[len(before)-1]))
}

// codeExt are the extensions that make a word a file name ("args.go"),
// unlike prose with a dot ("e.g", "i.e").
var codeExt = setOf(`.go .py .js .ts .tsx .jsx .rs .java .c .h .cc .cpp .hpp .rb .cs .php .sh .md .txt .yml .yaml
.json .toml .mod .sum .sql .html .css .kt .swift .m .mm .pl .pm .lua .ex .exs .erl .scala .proto .cfg .ini .xml`)

// looksLikeCode tells an identifier from a word: mixed case inside
// (parseConfig, ExecuteC), an underscore, or a dot between names.
func looksLikeCode(w string) bool {
	if strings.ContainsAny(w, ".:") {
		// a.b is code when a part is a name, not an abbreviation (e.g, i.e)
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '.' || r == ':' }) {
			if len(p) >= 3 {
				return true
			}
		}
		return false
	}
	if strings.Contains(w, "_") {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// searchTerms are a question's words for the keyword search: its
// content words and the other forms of some of them that commits are
// more likely to use. Only the search gets the other forms: what the
// question itself said (how broad it is, what to suggest) stays words.
func searchTerms(raw string, words []string) []string {
	return slices.Concat(withSpellings(words), numberTerms(raw), abbreviationTerms(raw), compoundTerms(raw))
}

// withSpellings adds the American spelling of a British word ("colour":
// "color", "behaviours": "behaviors"): code, messages and docs are
// mostly written in American English, and a question in British English
// would otherwise miss them. Only the -our words: an -ise/-ize rule would
// also rewrite "raise" and "promise".
func withSpellings(terms []string) []string {
	out := slices.Clip(terms)
	for _, t := range terms {
		for _, stem := range ourStems {
			if rest, ok := strings.CutPrefix(t, stem+"our"); ok && (rest == "" || ourEndings[rest]) {
				out = append(out, stem+"or"+rest)
			}
		}
	}
	return out
}

var (
	ourStems   = strings.Fields("col behavi fav hon flav neighb lab arm hum rum vig harb")
	ourEndings = setOf("s ed ing ful ite ites able")
)

// numberTerms are the numbers a question spells in words, in digits:
// "ten thousand levels" is 10000 and "more than a thousand characters"
// 1000, as code and commit messages write them. Only numbers of at least
// ten: "one" and "two" are more often words than quantities.
func numberTerms(raw string) []string {
	words := strings.Fields(markerText(raw))
	var out []string
	for i := 0; i < len(words); i++ {
		n, ok := smallNumbers[words[i]]
		if words[i] == "a" || words[i] == "one" {
			n, ok = 1, i+1 < len(words) && numberScales[words[i+1]] > 0
		}
		if !ok {
			continue
		}
		j := i + 1
		if j < len(words) && smallNumbers[words[j]] > 0 && smallNumbers[words[j]] < 10 && n >= 20 && n%10 == 0 {
			n += smallNumbers[words[j]] // "twenty four"
			j++
		}
		for ; j < len(words) && numberScales[words[j]] > 0; j++ {
			n *= numberScales[words[j]]
		}
		if n >= 10 {
			out = append(out, strconv.Itoa(n))
		}
		i = j - 1
	}
	return out
}

var (
	smallNumbers = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
		"fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
	numberScales = map[string]int{"hundred": 100, "thousand": 1000, "million": 1000000, "billion": 1000000000}
)

// abbreviationTerms add the other form of the software abbreviations a
// question uses: a user writes "standard error" where the commit says
// stderr, or "regex" where the manual says regular expression. The long
// form is searched as a phrase.
func abbreviationTerms(raw string) []string {
	text := markerText(raw)
	var out []string
	for _, p := range abbreviations {
		short, long, _ := strings.Cut(p, "=")
		switch {
		case strings.Contains(text, " "+short+" "):
			out = append(out, long)
		case strings.Contains(text, " "+long+" "):
			out = append(out, short)
		}
	}
	return out
}

// abbreviations: short=long, both as the words of a question read them.
var abbreviations = strings.Split("stderr=standard error,stdout=standard output,stdin=standard input,"+
	"regex=regular expression,regexp=regular expression,env=environment variable,envvar=environment variable,"+
	"cwd=current directory,pwd=working directory,tty=terminal,pty=pseudo terminal,cli=command line,"+
	"gc=garbage collection,oom=out of memory,eof=end of file,eol=end of line,crlf=line ending,"+
	"tls=transport layer security,ssl=secure sockets,dns=domain name,ua=user agent,"+
	"i18n=internationalization,l10n=localization,a11y=accessibility,ci=continuous integration,"+
	"tz=time zone,nul=null byte,nbsp=non breaking space,"+
	"ctrl=control key,esc=escape key,pid=process id,uid=user id,gid=group id,ipc=inter process,"+
	"cpu=processor,ms=milliseconds,fd=file descriptor,fds=file descriptors,kb=kilobytes,mb=megabytes,gb=gigabytes,os=operating system,vm=virtual machine,"+
	// Web and language tooling, security, signals and networking.
	"hmr=hot module replacement,hmr=hot reload,ssr=server side rendering,ssr=server rendering,csr=client side rendering,"+
	"dom=document object model,ast=syntax tree,jit=just in time,aot=ahead of time,repl=interactive shell,"+
	"lsp=language server,orm=object relational,ttl=time to live,rtt=round trip,mtu=packet size,"+
	"csrf=cross site request forgery,xss=cross site scripting,cors=cross origin,jwt=json web token,sso=single sign on,"+
	"2fa=two factor,mfa=multi factor,otp=one time password,acl=access control list,rbac=role based access,"+
	"uuid=unique identifier,bom=byte order mark,lru=least recently used,mmap=memory mapped,"+
	"ram=memory,io=input output,sigint=interrupt signal,sighup=hangup signal,sigterm=termination signal,"+
	"segfault=segmentation fault,segv=segmentation fault,nan=not a number,k8s=kubernetes,wasm=webassembly,"+
	"ws=websocket,h2=http 2,dos=denial of service,ddos=denial of service,"+
	"ui=user interface,gui=graphical interface,tui=terminal interface,"+
	"ide=editor,lint=linter,fmt=formatter,pr=pull request,prs=pull requests,vcs=version control,"+
	// Clipped words, as code and messages write them.
	"auth=authentication,authn=authentication,authz=authorization,perf=performance,"+
	"repo=repository,dir=directory,dirs=directories,args=arguments,arg=argument,param=parameter,params=parameters,"+
	"attr=attribute,attrs=attributes,func=function,init=initialization,async=asynchronous,"+
	"deps=dependencies,dep=dependency,msg=message,cmd=command,tmp=temporary,temp=temporary,"+
	"config=configuration,conf=configuration,impl=implementation,docs=documentation,doc=documentation", ",")

// compoundTerms are the hyphenated words of a question written as one
// word, as code and messages often write them: "built-in" is builtin,
// "multi-select" multiselect, "full-screen" fullscreen. The parts are
// searched anyway (Normalize splits at the hyphen).
func compoundTerms(raw string) []string {
	var out []string
	for _, w := range strings.Fields(raw) {
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
		parts := strings.Split(w, "-")
		if len(parts) < 2 || slices.ContainsFunc(parts, func(p string) bool {
			return p == "" || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0
		}) {
			continue
		}
		out = append(out, strings.Join(parts, ""))
	}
	return out
}
