package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/gitmemory/gitmemory/retrieve"
)

// componentOrder is the order --debug shows the score's parts in: the
// evidence terms the total is made of, the prior that scales them, then
// the raw signals relevance is computed from. Components the search adds
// later follow, sorted, so the table never hides one.
var componentOrder = []string{"relevance", "relationship", "bonus", "recency", "importance", "author", "prior_scale", "bm25", "vector"}

// debugColumns are the component names present in items, in display
// order.
func debugColumns(items []retrieve.Item) []string {
	present := map[string]bool{}
	for _, it := range items {
		for k := range it.Components {
			present[k] = true
		}
	}
	var cols, rest []string
	for _, k := range componentOrder {
		if present[k] {
			cols = append(cols, k)
			delete(present, k)
		}
	}
	for k := range present {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	return append(cols, rest...)
}

// debugRows are the table's cells: a row per result, its components
// and its total.
func debugRows(items []retrieve.Item, cols []string) [][]string {
	rows := make([][]string, len(items))
	for i, it := range items {
		row := []string{strconv.Itoa(i + 1), short(it.Commit)}
		for _, k := range cols {
			v, ok := it.Components[k]
			cell := "-"
			if ok {
				cell = strconv.FormatFloat(v, 'f', 3, 64)
			}
			row = append(row, cell)
		}
		rows[i] = append(row, strconv.FormatFloat(it.Score, 'f', 4, 64))
	}
	return rows
}

// writeDebug prints each result's score components and total as a table
// (Markdown when asked), with how the total is made when the components
// show it.
func writeDebug(w io.Writer, items []retrieve.Item, markdown bool) {
	if len(items) == 0 {
		return
	}
	cols := debugColumns(items)
	header := append(append([]string{"#", "commit"}, cols...), "total")
	rows := debugRows(items, cols)
	if markdown {
		fmt.Fprintln(w)
		mdTable(w, header, rows)
	} else {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		for _, r := range append([][]string{header}, rows...) {
			for _, c := range r {
				fmt.Fprint(tw, c, "\t")
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	if totalIsProduct(items) {
		fmt.Fprintln(w, "total = (relevance + relationship + bonus) × prior_scale; bm25 and vector are the raw signals relevance is made from")
	}
}

// totalIsProduct says whether every total is (relevance + relationship +
// bonus) × prior_scale, so that the legend states how the ranking is made
// only while it is true.
func totalIsProduct(items []retrieve.Item) bool {
	for _, it := range items {
		c := it.Components
		parts := []string{"relevance", "relationship", "bonus", "prior_scale"}
		for _, p := range parts {
			if _, ok := c[p]; !ok {
				return false
			}
		}
		want := (c["relevance"] + c["relationship"] + c["bonus"]) * c["prior_scale"]
		if math.Abs(want-it.Score) > 1e-3 {
			return false
		}
	}
	return true
}
