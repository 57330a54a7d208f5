package entity

import "strings"

// langWords are the words and rules by which a language's calls are told
// from everything else followed by a parenthesis.
type langWords struct {
	// keyword: names followed by "(" that are never calls of code in the
	// repository: keywords, and builtins no definition can shadow.
	keyword map[string]bool
	// define: words after which a name is being defined (def f(…)).
	define map[string]bool
	// typed: a name after another name is declared (int f(…), Foo x(…)),
	// unless the first is one of precedes (return f(…)).
	typed    bool
	precedes map[string]bool
	// modifier: words in parameter declarations that are no names.
	modifier map[string]bool
	// braceDef: f(…) { is a definition or a macro opening a block, not a
	// call (in Go, Rust, Python and Ruby it is a call before a block).
	braceDef bool
	// arrow: => may start a definition's body (JavaScript, C#).
	arrow bool
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

const (
	cKeywords = `if for while switch return sizeof alignof _Alignof __alignof__ typeof __typeof__ __typeof
		defined __attribute__ __attribute __declspec __asm__ asm __asm _Static_assert static_assert _Generic
		case do else goto __builtin_expect __builtin_offsetof offsetof va_arg va_start va_end va_copy`
	cppKeywords = cKeywords + ` catch throw new delete decltype noexcept alignas operator template typename
		static_cast dynamic_cast const_cast reinterpret_cast typeid co_await co_return co_yield requires`
	cPrecedes = `return else case do goto throw new delete co_await co_return co_yield await yield in not and or`
	cTypes    = `int char short long unsigned signed float double void bool _Bool const volatile static extern
		inline register struct union enum auto restrict`
	javaKeywords = `if for while switch return catch synchronized throw new assert try do else case super this
		instanceof yield`
	csKeywords = `if for foreach while switch return catch lock using fixed throw new do else case typeof sizeof
		nameof default checked unchecked base this is as await stackalloc when`
	jsKeywords = `if for while switch return catch throw new typeof instanceof delete void do else case in of
		function await yield super import require with async`
	goKeywords = `if for switch return go defer select func range case else chan map struct interface
		len cap make new append copy delete panic recover print println close complex real imag min max clear
		string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr byte rune float32 float64
		complex64 complex128 bool error any`
	pyKeywords = `if elif while for return and or not in is with assert del print lambda yield await except
		raise del global nonlocal super isinstance issubclass len str int float bool list dict set tuple
		type object getattr setattr hasattr delattr callable iter next range enumerate zip map filter sorted
		reversed sum min max abs any all repr hash id open print format vars dir exec eval`
	rustKeywords = `if while for match return loop in as unsafe move Some Ok Err None Box Vec String Rc Arc
		RefCell Cell Option Result`
	rbKeywords = `if unless while until for return and or not when case elsif yield defined? super raise puts
		print p require require_relative include extend lambda proc loop catch throw attr_reader
		attr_writer attr_accessor private protected public`
	phpKeywords = `if elseif for foreach while switch return catch throw new array list isset unset empty
		echo print exit die eval include include_once require require_once use fn function match
		declare instanceof clone yield`
)

var langWordsOf = func() map[string]*langWords {
	c := &langWords{keyword: set(cKeywords), define: set(""), typed: true, precedes: set(cPrecedes),
		modifier: set(cTypes), braceDef: true}
	cpp := &langWords{keyword: set(cppKeywords), define: set("class struct"), typed: true, precedes: set(cPrecedes),
		modifier: set(cTypes + " typename mutable constexpr"), braceDef: true}
	java := &langWords{keyword: set(javaKeywords), define: set("class interface enum record"), typed: true,
		precedes: set(cPrecedes + " assert"), modifier: set("final"), braceDef: true}
	cs := &langWords{keyword: set(csKeywords), define: set("class struct interface enum record"), typed: true,
		precedes: set(cPrecedes + " await return is as"), modifier: set("ref out in params this readonly scoped"),
		braceDef: true, arrow: true}
	js := &langWords{keyword: set(jsKeywords), define: set("function class get set static"), braceDef: true, arrow: true,
		modifier: set("public private protected readonly override declare")}
	return map[string]*langWords{
		"C": c, "C++": cpp, "Java": java, "C#": cs,
		"JavaScript": js, "TypeScript": js, "TSX": js,
		"Go":     {keyword: set(goKeywords), define: set("func")},
		"Python": {keyword: set(pyKeywords), define: set("def class")},
		"Rust":   {keyword: set(rustKeywords), define: set("fn struct enum trait impl"), modifier: set("mut dyn impl ref")},
		"Ruby":   {keyword: set(rbKeywords), define: set("def class module")},
		"PHP":    {keyword: set(phpKeywords), define: set("function class interface trait"), braceDef: true},
	}
}()

func wordsOf(lang string) *langWords { return langWordsOf[lang] }
