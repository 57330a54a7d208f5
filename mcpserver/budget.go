package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gitmemory/gitmemory/api"
	"github.com/gitmemory/gitmemory/retrieve"
)

// DefaultTokens is the token budget of an answer when the call sets none.
const DefaultTokens = retrieve.DefaultPackTokens

// tokenBudget checks a token_budget argument; 0 is the default.
func tokenBudget(n int) (int, error) {
	if n == 0 {
		return DefaultTokens, nil
	}
	if n < 0 || n > api.MaxTokens {
		return 0, fmt.Errorf("%w: token_budget %d: want 1 to %d", api.ErrBadRequest, n, api.MaxTokens)
	}
	return n, nil
}

// outputTokens counts structured output as the client receives it. The
// SDK re-encodes it after validation, through a map, so its keys arrive
// sorted: the count is taken on that form, not on the struct's.
func outputTokens(out any) (int, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return 0, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, err
	}
	if b, err = json.Marshal(v); err != nil {
		return 0, err
	}
	return retrieve.CountTokens(string(b))
}

// fits reports whether both forms of an answer fit the budget.
func fits[Out any](a *answer[Out], budget int) (bool, error) {
	n, err := retrieve.CountTokens(a.text)
	if err != nil || n > budget {
		return false, err
	}
	n, err = outputTokens(a.out)
	return n <= budget, err
}

// fitList returns the answer that shows the most of a list's total items
// within the budget: render(n) is the answer with the first n, which says
// how many it leaves out. Both the text and the structured output must
// fit. An answer only grows with n, so a binary search finds the largest
// n in a few renderings, whatever the list's length.
func fitList[Out any](budget, total int, render func(n int) *answer[Out]) (*answer[Out], error) {
	try := func(n int) (*answer[Out], bool, error) {
		a := render(n)
		ok, err := fits(a, budget)
		return a, ok, err
	}
	if a, ok, err := try(total); err != nil || ok {
		return a, err
	}
	a, ok, err := try(0)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tooSmall(budget, a)
	}
	lo, hi := 0, total-1 // render(lo) fits, render(hi+1) does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok, err := try(mid); err != nil {
			return nil, err
		} else if ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return render(lo), nil
}

// errTooSmall: not even an answer with none of its list's items fits.
var errTooSmall = errors.New("token_budget is too small")

// tooSmall says how much budget the smallest answer needs.
func tooSmall[Out any](budget int, a *answer[Out]) error {
	text, _ := retrieve.CountTokens(a.text)
	out, _ := outputTokens(a.out)
	return fmt.Errorf("%w: %w: %d tokens, and even with no items the answer takes %d",
		api.ErrBadRequest, errTooSmall, budget, max(text, out))
}
