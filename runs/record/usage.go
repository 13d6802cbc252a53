package record

import (
	"fmt"
	"slices"
	"strings"
)

// What a run's agent used, as its runtime reports it. A runtime emits one usage event
// (EventUsage) at the end of each turn, saying what that turn used: its tokens and their
// cost, in all and per model. The events are the record, per turn; the run's record keeps
// their sum (Info.Usage), and its summary the totals (Summary.Usage), so that a sum over
// thousands of runs reads the runs index alone (see Summaries).
//
// A usage event is runtime-neutral: Claude Code's comes from its result events (runs/claude);
// another runtime maps what it reports onto the same fields, and leaves zero what it does not
// report.

// Usage is tokens and their cost: what a turn, a run or a day used.
type Usage struct {
	// InputTokens are the tokens the model read that came from no cache.
	InputTokens int64 `json:"input,omitempty"`
	// OutputTokens are the tokens the model wrote, its thinking included.
	OutputTokens int64 `json:"output,omitempty"`
	// CacheReadTokens are input tokens read from the prompt cache, at a lower price.
	CacheReadTokens int64 `json:"cacheRead,omitempty"`
	// CacheWriteTokens are input tokens written to the prompt cache, at a higher price.
	CacheWriteTokens int64 `json:"cacheWrite,omitempty"`
	// CostUSD is what the runtime says these tokens cost, in US dollars, at list prices
	// (Claude Code's own estimate: not a bill).
	CostUSD float64 `json:"costUSD,omitempty"`
}

// Tokens is all the tokens u counts: input, output and cache, read and written.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.CostUSD += o.CostUSD
}

// IsZero says whether u counts nothing.
func (u Usage) IsZero() bool { return u == Usage{} }

// ModelUsage is what one model used.
type ModelUsage struct {
	Model string `json:"model"`
	Usage
}

// UsageInfo is what one turn used, on a usage event: its totals, and the same per model
// (a turn may use more than one: a subagent's, a side request's).
type UsageInfo struct {
	Usage
	Models []ModelUsage `json:"models,omitempty"`
	// Requests is how many requests to the model the turn made (Claude Code's num_turns),
	// when the runtime says.
	Requests int `json:"requests,omitempty"`
}

// RunUsage is what a run used in all: the sum of its usage events.
type RunUsage struct {
	Usage
	// Turns is how many turns reported their usage: the turns that ended.
	Turns  int          `json:"turns"`
	Models []ModelUsage `json:"models,omitempty"`
}

// add adds a turn's usage to u.
func (u *RunUsage) add(turn UsageInfo) {
	u.Usage.Add(turn.Usage)
	u.Turns++
	for _, m := range turn.Models {
		i, found := slices.BinarySearchFunc(u.Models, m.Model, func(a ModelUsage, model string) int {
			return strings.Compare(a.Model, model)
		})
		if !found {
			u.Models = slices.Insert(u.Models, i, ModelUsage{Model: m.Model})
		}
		u.Models[i].Add(m.Usage)
	}
}

// UsageText says what u counts, for a person: "$0.0123, 12,345 tokens (12,000 in, 300
// out, 45 cache read, 0 cache write)".
func UsageText(u Usage) string {
	return fmt.Sprintf("$%.4f, %s tokens (%s in, %s out, %s cache read, %s cache write)", u.CostUSD,
		Thousands(u.Tokens()), Thousands(u.InputTokens), Thousands(u.OutputTokens), Thousands(u.CacheReadTokens), Thousands(u.CacheWriteTokens))
}

// String says what u counts, for a person: its UsageText over its turns, and its models.
func (u RunUsage) String() string {
	return UsageText(u.Usage) + " over " + Plural(u.Turns, "turn") + modelsText(u.Models)
}

// modelsText names the models of a turn's usage, after its UsageText: " by opus" or " by
// haiku $0.0010, opus $0.0500"; "" when it names none.
func modelsText(models []ModelUsage) string {
	switch len(models) {
	case 0:
		return ""
	case 1:
		return " by " + models[0].Model
	}
	parts := make([]string, len(models))
	for i, m := range models {
		parts[i] = fmt.Sprintf("%s $%.4f", m.Model, m.CostUSD)
	}
	return " by " + strings.Join(parts, ", ")
}

// Thousands writes n with a comma between each group of three digits: 12,345.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
