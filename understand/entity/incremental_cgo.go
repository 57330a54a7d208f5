package entity

/*
#include <stdint.h>

// Three functions of the tree-sitter runtime that go-tree-sitter compiles
// into the program but does not expose: its Tree.Edit passes the old end
// point as the new one, and it has neither ts_tree_get_changed_ranges nor
// the byte range of a query cursor. The declarations follow tree-sitter's
// api.h; the linker resolves them against go-tree-sitter's objects.
typedef struct { uint32_t row; uint32_t column; } entPoint;
typedef struct {
	entPoint start_point;
	entPoint end_point;
	uint32_t start_byte;
	uint32_t end_byte;
} entRange;
typedef struct {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	entPoint start_point;
	entPoint old_end_point;
	entPoint new_end_point;
} entEdit;

void ts_tree_edit(void *tree, const entEdit *edit);
entRange *ts_tree_get_changed_ranges(const void *old_tree, const void *new_tree, uint32_t *length);
void ts_query_cursor_set_byte_range(void *cursor, uint32_t start_byte, uint32_t end_byte);
extern void (*ts_current_free)(void *);

// changedRanges writes at most max changed ranges of two trees to out, as
// start and end byte pairs, and returns their number.
static uint32_t changedRanges(const void *old_tree, const void *new_tree, uint32_t *out, uint32_t max) {
	uint32_t n = 0;
	entRange *r = ts_tree_get_changed_ranges(old_tree, new_tree, &n);
	for (uint32_t i = 0; i < n && i < max; i++) {
		out[2*i] = r[i].start_byte;
		out[2*i+1] = r[i].end_byte;
	}
	ts_current_free(r);
	return n;
}
*/
import "C"

import (
	"reflect"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// cgoLayoutOK reports whether go-tree-sitter's BaseTree and QueryCursor
// still start with their C pointer, which cTree and cCursor read. If a
// new version moves it, Parser.Changes falls back to full parses.
var cgoLayoutOK = firstFieldIsPointer(reflect.TypeFor[sitter.BaseTree](), "c") &&
	firstFieldIsPointer(reflect.TypeFor[sitter.QueryCursor](), "c")

func firstFieldIsPointer(t reflect.Type, name string) bool {
	return t.NumField() > 0 && t.Field(0).Name == name && t.Field(0).Type.Kind() == reflect.Pointer &&
		t.Field(0).Offset == 0
}

// cTree returns a tree's TSTree pointer: the first field of its BaseTree.
func cTree(t *sitter.Tree) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(t.BaseTree))
}

// cCursor returns a query cursor's TSQueryCursor pointer, its first field.
func cCursor(c *sitter.QueryCursor) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(c))
}

// textEdit is one replacement of source bytes, with the points of its ends
// (0-based rows, byte columns) as tree-sitter wants them.
type textEdit struct {
	start, oldEnd, newEnd                int
	startPoint, oldEndPoint, newEndPoint sitter.Point
}

// editTree applies an edit to a tree, as Tree.Edit should.
func editTree(t *sitter.Tree, e textEdit) {
	point := func(p sitter.Point) C.entPoint {
		return C.entPoint{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)}
	}
	ce := C.entEdit{
		start_byte:    C.uint32_t(e.start),
		old_end_byte:  C.uint32_t(e.oldEnd),
		new_end_byte:  C.uint32_t(e.newEnd),
		start_point:   point(e.startPoint),
		old_end_point: point(e.oldEndPoint),
		new_end_point: point(e.newEndPoint),
	}
	C.ts_tree_edit(cTree(t), &ce)
}

// span is a half-open range of bytes.
type span struct{ start, end int }

// changedSpans returns the ranges of an edited old tree and the tree
// reparsed from it whose syntax differs. Text changes that keep the
// syntax are not among them.
func changedSpans(old, new *sitter.Tree, out []span) []span {
	var buf [2 * 64]C.uint32_t
	n := int(C.changedRanges(cTree(old), cTree(new), &buf[0], C.uint32_t(len(buf)/2)))
	if n > len(buf)/2 {
		// Too many to copy: report one range over all of them.
		return append(out, span{0, int(^uint32(0) >> 1)})
	}
	for i := range n {
		out = append(out, span{int(buf[2*i]), int(buf[2*i+1])})
	}
	return out
}

// setByteRange limits a query cursor's next matches to nodes that
// intersect [start, end); end 0 lifts the limit.
func setByteRange(c *sitter.QueryCursor, start, end int) {
	C.ts_query_cursor_set_byte_range(cCursor(c), C.uint32_t(start), C.uint32_t(end))
}
