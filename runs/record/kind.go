package record

import "fmt"

// Kind is what a run is for; it decides the prompt, and what the agent may do (an ask
// run's runtime takes the tools that change files away).
type Kind string

// The run kinds of DESIGN.md.
const (
	KindBuild Kind = "build" // the person's task
	KindReady Kind = "ready" // get the current branch ready for review
	KindAsk   Kind = "ask"   // answer a question, changing nothing
)

// ParseKind returns the Kind named s, or an error that lists the kinds.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case KindBuild, KindReady, KindAsk:
		return k, nil
	}
	return "", fmt.Errorf("unknown run kind %q: use build, ready or ask", s)
}

// HoldsCheckout says whether a run of this kind may change its checkout, and so must not
// share it with another such run.
func (k Kind) HoldsCheckout() bool { return k != KindAsk }

// ReadyPrompt is what a ready run asks for; the person's notes follow it.
const ReadyPrompt = "Get the current branch ready for review: run the project's checks " +
	"(build, tests, linters), fix what fails, and finish with a short summary of what you " +
	"ran, what you fixed and anything left for a person."

// AskPrefix comes before the person's question in an ask run.
const AskPrefix = "Answer the question below without changing anything: do not create, " +
	"edit or delete files, do not commit, and do not run commands that modify this checkout " +
	"or anything else. Only read and inspect.\n\nQuestion: "
